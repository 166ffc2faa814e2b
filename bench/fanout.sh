#!/usr/bin/env bash
# Fan-out at scale: N subscriptions (default 1,000,000, seeded straight into PostgreSQL), one
# notification to `Subscribed Users` through POST /notifications, delivered by one `openpush dev`
# process to the local APNs simulator. Prints the API latency, time to the first push accepted,
# pushes/s sustained, time to the last, the peak RSS of openpush, the CPU each of OpenPush,
# PostgreSQL and the simulator spent per 1,000 pushes (steadier than the rate on a shared
# machine), and h2load on the same payload: three rounds, each a new notification to the same
# devices and then one h2load run, so each round's ratio pairs its two rates taken seconds apart
# (a single h2load run's rate moved from 86,000 to 131,000 req/s on the shared machine in one
# afternoon); the figure is the median round's.
# Usage: [LOOPS=8] [ROUNDS=3] bench/fanout.sh [subscriptions]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-1000000}
source bench/lib.sh
bench_require h2load python3 psql
bench_start ${LOOPS:-8}

bench_seed_subscriptions "$total"

bench_python TOTAL="$total" SIM_PID="$simulator" ROUNDS="${ROUNDS:-3}" <<'PY'
import lib, http.client, os, time
total = int(os.environ["TOTAL"])
processes = lambda: (lib.cpu_seconds(os.environ["SERVER_PID"]), lib.postgres_cpu_seconds(), lib.cpu_seconds(os.environ["SIM_PID"]))

def clear_pushes():
    control = http.client.HTTPConnection("127.0.0.1", int(os.environ["CONTROL_PORT"]))
    control.request("DELETE", "/pushes"); control.getresponse().read(); control.close()

print(f"== one notification to {total:,} subscriptions, {os.environ['ROUNDS']} rounds (each then h2load once)")
rounds = []
for number in range(1, int(os.environ["ROUNDS"]) + 1):
    clear_pushes()
    before = processes()
    started = time.monotonic()
    api_latency = lib.notify_everyone()
    first, last = lib.wait_accepted(total, started)
    spent = [(after - earlier) * 1e6 / total for after, earlier in zip(processes(), before)]
    lib.save_payload(lib.control("/pushes?limit=1")["pushes"][0])
    rate = total / (last - first)
    print(f"   round {number}: POST /notifications answered in {api_latency * 1000:.1f} ms; first push accepted after"
          f" {first:.2f} s, last after {last:.1f} s; sustained {rate:,.0f} pushes/s")
    print(f"   round {number}: CPU per 1,000 pushes: OpenPush {spent[0]:.0f} ms, PostgreSQL {spent[1]:.0f} ms, simulator {spent[2]:.0f} ms")
    rounds.append((rate, lib.h2load("alert", "com.example.openpush.demo")))
print(f"   peak RSS of openpush over every round: {lib.rss_peak_mib():.0f} MiB")
for number, (ours, theirs) in enumerate(rounds, 1):
    print(f"   round {number}: openpush {ours:,.0f} pushes/s vs h2load {theirs:,.0f} req/s = {ours / theirs:.2f}x")
ours, theirs = sorted(rounds, key=lambda pair: pair[0] / pair[1])[len(rounds) // 2]
print(f"== ratio: openpush {ours:.0f} pushes/s vs h2load {theirs:.0f} req/s (the median round) = {ours / theirs:.2f}x")
PY

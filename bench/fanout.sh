#!/usr/bin/env bash
# Fan-out at scale: N subscriptions (default 1,000,000, seeded straight into PostgreSQL), one
# notification to `Subscribed Users` through POST /notifications, delivered by one `openpush dev`
# process to the local APNs simulator. Prints the API latency, time to the first push accepted,
# pushes/s sustained, time to the last, the peak RSS of openpush, the CPU each of OpenPush,
# PostgreSQL and the simulator spent per 1,000 pushes (steadier than the rate on a shared
# machine), and h2load on the same payload.
# Usage: [LOOPS=8] bench/fanout.sh [subscriptions]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-1000000}
source bench/lib.sh
bench_require h2load python3 psql
bench_start ${LOOPS:-8}

bench_seed_subscriptions "$total"

bench_python TOTAL="$total" SIM_PID="$simulator" <<'PY'
import lib, os, time
total = int(os.environ["TOTAL"])
processes = lambda: (lib.cpu_seconds(os.environ["SERVER_PID"]), lib.postgres_cpu_seconds(), lib.cpu_seconds(os.environ["SIM_PID"]))
before = processes()
started = time.monotonic()
api_latency = lib.notify_everyone()
first, last = lib.wait_accepted(total, started)
spent = [(after - earlier) * 1e6 / total for after, earlier in zip(processes(), before)]
lib.save_payload(lib.control("/pushes?limit=1")["pushes"][0])
lib.save_rate(total / (last - first))
print(f"== one notification to {total:,} subscriptions")
print(f"   POST /notifications answered in {api_latency * 1000:.1f} ms")
print(f"   first push accepted after {first:.2f} s, last after {last:.1f} s")
print(f"   sustained: {total / (last - first):,.0f} pushes/s; peak RSS of openpush: {lib.rss_peak_mib():.0f} MiB")
print(f"   CPU per 1,000 pushes: OpenPush {spent[0]:.0f} ms, PostgreSQL {spent[1]:.0f} ms, simulator {spent[2]:.0f} ms")
PY

bench_h2load_ratio "$(cat "$state/rate")" alert com.example.openpush.demo

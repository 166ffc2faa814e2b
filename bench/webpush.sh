#!/usr/bin/env bash
# Browser fan-out: N web subscriptions (default 100,000, seeded straight into PostgreSQL, all with
# one browser key pair the simulator made), one notification to `Subscribed Users` through POST
# /notifications, delivered by one `openpush dev` process to the local Web Push simulator
# (`openpush webpush-sim`, its own process, HTTP/1.1). Prints the API latency, time to the first
# push taken and to the last, pushes/s sustained, the CPU each of OpenPush, PostgreSQL and the
# simulator spent per 1,000 pushes, the CPU one push's encryption costs (`webpush-sim
# --measure-encryption`), and `h2load --h1` posting one of the bodies openpush sent, with its
# headers, to the same simulator: ROUNDS rounds, each a notification then one h2load run; the
# figure is the median round's ratio.
# Usage: [LOOPS=8] [ROUNDS=3] bench/webpush.sh [subscriptions]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-100000}
source bench/lib.sh
bench_require h2load python3 psql curl

# The simulator first, so `openpush dev` is pointed at it (and starts none of its own).
webpush_state=$(mktemp -d)
webpush_port=$(free_port); webpush_control_port=$(free_port)
"$binary" webpush-sim --port "$webpush_port" --control-port "$webpush_control_port" >"$webpush_state/sim.log" 2>&1 &
webpush_simulator=$!
bench_extra_pids=$webpush_simulator
trap 'kill -TERM "$webpush_simulator" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$webpush_state"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$webpush_control_port/counters" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "http://127.0.0.1:$webpush_control_port/counters" >/dev/null || { echo "webpush-sim did not start:" >&2; cat "$webpush_state/sim.log" >&2; exit 1; }
export OPENPUSH_WEB_PUSH_HOSTS=127.0.0.1 OPENPUSH_WEBHOOKS_ALLOW_PRIVATE=1 OPENPUSH_WEB_PUSH_SUBJECT=mailto:bench@openpush.localhost

bench_start ${LOOPS:-8}
trap 'bench_cleanup; rm -rf "$webpush_state"' EXIT

# One browser key pair for every subscription; each its own endpoint path.
keys=$(curl -fsS -X POST "http://127.0.0.1:$webpush_control_port/subscriptions" -d '{"path": "/push/keys"}')
p256dh=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["p256dh"])' "$keys")
auth=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["auth"])' "$keys")
started=$(date +%s.%N)
psql "$conninfo" -q -c "INSERT INTO subscriptions (id, app_id, platform, token, web_p256, web_auth, web_type, first_session_at, last_session_at)
  SELECT 'sub_w' || lpad(i::text, 8, '0'), '$app', 'web', 'http://127.0.0.1:$webpush_port/push/b' || i, '$p256dh', '$auth',
         'ChromePush', now(), now()
  FROM generate_series(1, $total) AS i" -c "ANALYZE subscriptions"
echo "== seeded $total web subscriptions in $(python3 -c "import time; print('%.1f' % (time.time() - $started))") s"

bench_python TOTAL="$total" WEBPUSH_STATE="$webpush_state" WEBPUSH_SIM_PID="$webpush_simulator" WEBPUSH_PORT="$webpush_port" \
  WEBPUSH_CONTROL_PORT="$webpush_control_port" ROUNDS="${ROUNDS:-3}" <<'PY'
import lib, lib_webpush, os, time
total = int(os.environ["TOTAL"])
processes = lambda: (lib.cpu_seconds(os.environ["SERVER_PID"]), lib.postgres_cpu_seconds(), lib.cpu_seconds(os.environ["WEBPUSH_SIM_PID"]))

print(f"== one notification to {total:,} web subscriptions, {os.environ['ROUNDS']} rounds (each then h2load --h1 once)")
rounds = []
for number in range(1, int(os.environ["ROUNDS"]) + 1):
    lib_webpush.control("DELETE", "/pushes")
    baseline = lib_webpush.accepted_count()
    before = processes()
    started = time.monotonic()
    api_latency = lib.notify_everyone()
    first, last = lib_webpush.wait_accepted(total, started, baseline)
    spent = [(after - earlier) * 1e6 / total for after, earlier in zip(processes(), before)]
    headers = lib_webpush.save_request()
    rate = total / (last - first)
    print(f"   round {number}: POST /notifications answered in {api_latency * 1000:.1f} ms; first push taken after"
          f" {first:.2f} s, last after {last:.1f} s; sustained {rate:,.0f} pushes/s")
    print(f"   round {number}: CPU per 1,000 pushes: OpenPush {spent[0]:.0f} ms, PostgreSQL {spent[1]:.0f} ms, simulator {spent[2]:.0f} ms")
    lib_webpush.control("DELETE", "/pushes")
    rounds.append((rate, lib_webpush.h2load(headers)))
print(f"   peak RSS of openpush over every round: {lib.rss_peak_mib():.0f} MiB")
for number, (ours, theirs) in enumerate(rounds, 1):
    print(f"   round {number}: openpush {ours:,.0f} pushes/s vs h2load --h1 {theirs:,.0f} req/s = {ours / theirs:.2f}x")
ours, theirs = sorted(rounds, key=lambda pair: pair[0] / pair[1])[len(rounds) // 2]
print(f"== ratio: openpush {ours:.0f} pushes/s vs h2load --h1 {theirs:.0f} req/s (the median round) = {ours / theirs:.2f}x (bar: 0.3x)")
PY
"$binary" webpush-sim --measure-encryption 20000

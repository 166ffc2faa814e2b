#!/usr/bin/env bash
# Android fan-out: N Android subscriptions (default 100,000, seeded straight into PostgreSQL), one
# notification to `Subscribed Users` through POST /notifications, delivered by one `openpush dev`
# process to the local FCM simulator (`openpush fcm-sim`, its own process) with a service account
# made for the run. Prints the API latency, time to the first message accepted, messages/s
# sustained, time to the last, the peak RSS of openpush, the CPU each of OpenPush, PostgreSQL and
# the simulator spent per 1,000 pushes, and h2load posting the same FCM v1 request (the body
# openpush sent, with a bearer token from the simulator's token endpoint) to the same simulator:
# three rounds, each a new notification to the same devices and then one h2load run, so each
# round's ratio pairs two rates taken seconds apart; the figure is the median round's.
# Usage: [LOOPS=8] [ROUNDS=3] bench/fcm.sh [subscriptions]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-100000}
source bench/lib.sh
bench_require h2load python3 psql openssl curl

# The FCM simulator first, so `openpush dev` is pointed at it (and starts none of its own).
fcm_state=$(mktemp -d)
fcm_port=$(free_port); fcm_token_port=$(free_port); fcm_control_port=$(free_port)
fcm_python() { env PYTHONPATH="$PWD/bench" PYTHONDONTWRITEBYTECODE=1 FCM_STATE="$fcm_state" "$@"; }
fcm_python python3 -c 'import lib_fcm; lib_fcm.make_service_account()'
"$binary" fcm-sim --port "$fcm_port" --token-port "$fcm_token_port" --control-port "$fcm_control_port" \
  --service-account "$fcm_state/fcm-service-account.json" >"$fcm_state/sim.log" 2>&1 &
fcm_simulator=$!
bench_extra_pids=$fcm_simulator
trap 'kill -TERM "$fcm_simulator" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$fcm_state"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$fcm_control_port/counters" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "http://127.0.0.1:$fcm_control_port/counters" >/dev/null || { echo "fcm-sim did not start:" >&2; cat "$fcm_state/sim.log" >&2; exit 1; }
export OPENPUSH_FCM_URL=http://127.0.0.1:$fcm_port OPENPUSH_FCM_TOKEN_URL=http://127.0.0.1:$fcm_token_port/token

bench_start ${LOOPS:-8}
trap 'bench_cleanup; rm -rf "$fcm_state"' EXIT

# The demo app's FCM credentials: the account the simulator knows.
fcm_python python3 -c 'import json, lib_fcm; print(json.dumps({"fcm_service_account": open(lib_fcm.account_file).read()}))' \
  >"$fcm_state/credentials.json"
curl -fsS -o /dev/null -X PUT "http://127.0.0.1:$api_port/apps/$app" -H "Authorization: Key $(cat "$state/.openpush/org_api_key")" \
  -H 'Content-Type: application/json' --data-binary @"$fcm_state/credentials.json"

started=$(date +%s.%N)
psql "$conninfo" -q -c "INSERT INTO subscriptions (id, app_id, platform, token, first_session_at, last_session_at)
  SELECT 'sub_a' || lpad(i::text, 8, '0'), '$app', 'android', 'bench' || i || ':APA91b' || md5(i::text) || md5('t' || i), now(), now()
  FROM generate_series(1, $total) AS i" -c "ANALYZE subscriptions"
echo "== seeded $total Android subscriptions in $(python3 -c "import time; print('%.1f' % (time.time() - $started))") s"

bench_python TOTAL="$total" FCM_STATE="$fcm_state" FCM_SIM_PID="$fcm_simulator" FCM_PORT="$fcm_port" \
  FCM_TOKEN_PORT="$fcm_token_port" FCM_CONTROL_PORT="$fcm_control_port" ROUNDS="${ROUNDS:-3}" <<'PY'
import lib, lib_fcm, os, time
total = int(os.environ["TOTAL"])
processes = lambda: (lib.cpu_seconds(os.environ["SERVER_PID"]), lib.postgres_cpu_seconds(), lib.cpu_seconds(os.environ["FCM_SIM_PID"]))
bearer = lib_fcm.access_token()

print(f"== one notification to {total:,} Android subscriptions, {os.environ['ROUNDS']} rounds (each then h2load once)")
rounds = []
for number in range(1, int(os.environ["ROUNDS"]) + 1):
    lib_fcm.control("DELETE", "/messages")
    baseline = lib_fcm.accepted_count()
    before = processes()
    started = time.monotonic()
    api_latency = lib.notify_everyone()
    first, last = lib_fcm.wait_accepted(total, started, baseline)
    spent = [(after - earlier) * 1e6 / total for after, earlier in zip(processes(), before)]
    lib_fcm.save_request()
    rate = total / (last - first)
    print(f"   round {number}: POST /notifications answered in {api_latency * 1000:.1f} ms; first message accepted after"
          f" {first:.2f} s, last after {last:.1f} s; sustained {rate:,.0f} messages/s")
    print(f"   round {number}: CPU per 1,000 pushes: OpenPush {spent[0]:.0f} ms, PostgreSQL {spent[1]:.0f} ms, simulator {spent[2]:.0f} ms")
    lib_fcm.control("DELETE", "/messages")
    rounds.append((rate, lib_fcm.h2load(bearer)))
print(f"   peak RSS of openpush over every round: {lib.rss_peak_mib():.0f} MiB")
for number, (ours, theirs) in enumerate(rounds, 1):
    print(f"   round {number}: openpush {ours:,.0f} messages/s vs h2load {theirs:,.0f} req/s = {ours / theirs:.2f}x")
ours, theirs = sorted(rounds, key=lambda pair: pair[0] / pair[1])[len(rounds) // 2]
print(f"== ratio: openpush {ours:.0f} messages/s vs h2load {theirs:.0f} req/s (the median round) = {ours / theirs:.2f}x (bar: 0.4x)")
PY

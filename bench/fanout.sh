#!/usr/bin/env bash
# Fan-out at scale: N subscriptions (default 1,000,000, seeded straight into PostgreSQL), one
# notification to `Subscribed Users` through POST /notifications, delivered by one `openpush dev`
# process to the local APNs simulator. Prints the API latency, time to the first push accepted,
# pushes/s sustained, time to the last, the peak RSS of openpush, and h2load on the same payload.
# Usage: [LOOPS=4] bench/fanout.sh [subscriptions]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-1000000}
binary=$PWD/.build/release/openpush
[ -x "$binary" ] || { echo "build first: swift build -c release" >&2; exit 1; }
for tool in h2load python3 psql; do command -v $tool >/dev/null || { echo "$tool is missing (make bench installs it)" >&2; exit 1; }; done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
api_port=$(free_port); sim_port=$(free_port); control_port=$(free_port)
state=$(mktemp -d); chmod 755 "$state"
cleanup() {
  kill -TERM "${server:-}" "${simulator:-}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$state"
}
trap cleanup EXIT

"$binary" apns-sim --accept-any-token --port "$sim_port" --control-port "$control_port" >"$state/sim.log" 2>&1 &
simulator=$!
(cd "$state" && OPENPUSH_LISTEN=127.0.0.1:$api_port OPENPUSH_LOG_LEVEL=warning OPENPUSH_RESOURCES_DIR="$OLDPWD" \
  OPENPUSH_APNS_PRODUCTION_URL=http://127.0.0.1:$sim_port OPENPUSH_APNS_DEVELOPMENT_URL=http://127.0.0.1:$sim_port \
  OPENPUSH_DB_POOL_SIZE=16 OPENPUSH_DELIVERY_LOOPS=${LOOPS:-4} exec "$binary" dev >"$state/dev.log" 2>&1) &
server=$!
for _ in $(seq 1 150); do
  [ -f "$state/.openpush/demo_app.json" ] && curl -fs "http://127.0.0.1:$api_port/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://127.0.0.1:$api_port/ready" >/dev/null || { echo "openpush did not start:" >&2; cat "$state/dev.log" >&2; exit 1; }
conninfo="host=$state/.openpush/postgres/socket port=$(cat "$state/.openpush/postgres/port") user=postgres dbname=openpush"
app=$(python3 -c "import json; print(json.load(open('$state/.openpush/demo_app.json'))['id'])")
rest=$(python3 -c "import json; print(json.load(open('$state/.openpush/demo_app.json'))['rest_key'])")

seed_started=$(date +%s.%N)
psql "$conninfo" -q -c "INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
  SELECT 'sub_f' || lpad(i::text, 8, '0'), '$app', 'aa' || md5(i::text) || md5('t' || i), now(), now()
  FROM generate_series(1, $total) AS i" -c "ANALYZE subscriptions"
echo "== seeded $total subscriptions in $(python3 -c "import time; print('%.1f' % (time.time() - $seed_started))") s"

API_PORT=$api_port CONTROL_PORT=$control_port APP=$app REST=$rest TOTAL=$total SERVER_PID=$server STATE="$state" python3 - <<'PY'
import http.client, json, os, time
total, pid = int(os.environ["TOTAL"]), os.environ["SERVER_PID"]
api = http.client.HTTPConnection("127.0.0.1", int(os.environ["API_PORT"]))
control = http.client.HTTPConnection("127.0.0.1", int(os.environ["CONTROL_PORT"]))

def accepted():
    control.request("GET", "/pushes?limit=1")
    return json.loads(control.getresponse().read())

def rss_peak_mib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"): return int(line.split()[1]) / 1024
    return float("nan")

body = {"app_id": os.environ["APP"], "contents": {"en": "Your order is on its way"}, "headings": {"en": "OpenPush"},
        "included_segments": ["Subscribed Users"]}
started = time.monotonic()
api.request("POST", "/notifications", json.dumps(body), {"Content-Type": "application/json", "Authorization": f"Key {os.environ['REST']}"})
response = api.getresponse(); answer = response.read()
api_latency = time.monotonic() - started
assert response.status == 200, (response.status, answer)
first = None
while True:
    state = accepted()
    count = state["accepted_count"]
    now = time.monotonic() - started
    if count > 0 and first is None: first = now
    if count >= total: break
    if now > 1800: raise SystemExit(f"only {count} of {total} accepted after 30 minutes")
    time.sleep(0.05)
last = time.monotonic() - started
open(os.path.join(os.environ["STATE"], "payload.json"), "w").write(json.dumps(state["pushes"][0]["payload"], separators=(",", ":")))
open(os.path.join(os.environ["STATE"], "rate"), "w").write("%.0f" % (total / (last - first)))
print(f"== one notification to {total:,} subscriptions")
print(f"   POST /notifications answered in {api_latency * 1000:.1f} ms")
print(f"   first push accepted after {first:.2f} s, last after {last:.1f} s")
print(f"   sustained: {total / (last - first):,.0f} pushes/s; peak RSS of openpush: {rss_peak_mib():.0f} MiB")
PY

echo "== h2load against the same simulator, same payload (-c 2 -m 100)"
h2load -n 100000 -c 2 -m 100 -d "$state/payload.json" -H 'apns-push-type: alert' -H 'apns-topic: com.example.openpush.demo' \
  -H 'apns-priority: 10' "http://127.0.0.1:$sim_port/3/device/aa0000000000000000000000000000000000000000000000000000000000000001" \
  >"$state/h2load.txt" 2>&1
grep -E "finished in" "$state/h2load.txt" | sed 's/^/   /'
theirs=$(grep -o 'finished in [^,]*, [0-9.]* req/s' "$state/h2load.txt" | grep -o '[0-9.]* req/s' | cut -d' ' -f1)
python3 -c "print('== ratio: openpush %s pushes/s vs h2load %.0f req/s = %.2fx' % ('$(cat "$state/rate")', float('$theirs'), float('$(cat "$state/rate")') / float('$theirs')))"

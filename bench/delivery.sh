#!/usr/bin/env bash
# Delivery throughput, end to end: 100,000 Live Activity starts queued through the public routes
# (50 requests × 2000 devices), delivered by one `openpush dev` process to the local APNs
# simulator. Prints pushes/s from the first request to the last push accepted, the
# queue→accepted latency (p50/p99), the API latency of a 2000-device start, and then h2load
# against the same simulator with the same payload, and the ratio of the two.
# Usage: bench/delivery.sh [requests]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-50}
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
  OPENPUSH_DB_POOL_SIZE=16 OPENPUSH_DELIVERY_LOOPS=4 exec "$binary" dev >"$state/dev.log" 2>&1) &
server=$!
for _ in $(seq 1 150); do
  [ -f "$state/.openpush/demo_app.json" ] && curl -fs "http://127.0.0.1:$api_port/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://127.0.0.1:$api_port/ready" >/dev/null || { echo "openpush did not start:" >&2; cat "$state/dev.log" >&2; exit 1; }
conninfo="host=$state/.openpush/postgres/socket port=$(cat "$state/.openpush/postgres/port") user=postgres dbname=openpush"

BENCH_STATE="$state" API_PORT=$api_port CONTROL_PORT=$control_port REQUESTS=$requests python3 - <<'PY'
import http.client, json, os, statistics, time
state, port, requests = os.environ["BENCH_STATE"], int(os.environ["API_PORT"]), int(os.environ["REQUESTS"])
demo = json.load(open(os.path.join(state, ".openpush", "demo_app.json")))
app, rest, sdk = demo["id"], demo["rest_key"], demo["sdk_key"]
api = http.client.HTTPConnection("127.0.0.1", port)

def call(method, path, body, headers):
    api.request(method, path, json.dumps(body), {"Content-Type": "application/json", **headers})
    response = api.getresponse()
    return response.status, response.read()

# 2000 devices, each with a push-to-start token, registered through the native routes.
for i in range(2000):
    token = "aa%062x" % i
    call("POST", f"/v1/apps/{app}/subscriptions", {"token": token, "external_id": f"u-{i}"}, {"X-OP-SDK-Key": sdk})
    status, _ = call("POST", f"/v1/apps/{app}/live-activities/push-to-start",
                     {"token": token, "activity_type": "BenchAttributes", "push_to_start_token": "ab%062x" % i},
                     {"X-OP-SDK-Key": sdk})
    assert status == 200, status

control = http.client.HTTPConnection("127.0.0.1", int(os.environ["CONTROL_PORT"]))
control.request("DELETE", "/pushes"); control.getresponse().read()
latencies = []
started = time.monotonic()
for n in range(requests):
    body = {"event": "start", "activity_id": f"bench-{n}", "name": "bench",
            "event_attributes": {"orderNumber": str(n)}, "event_updates": {"status": "out", "etaMinutes": 24},
            "headings": {"en": "On the way"}, "contents": {"en": "Arriving in about {{ eta | default: 24 }} minutes"},
            "included_segments": ["Subscribed Users"]}
    t = time.monotonic()
    status, answer = call("POST", f"/apps/{app}/activities/activity/BenchAttributes", body, {"Authorization": f"Key {rest}"})
    latencies.append(time.monotonic() - t)
    assert status == 201, (status, answer)
expected = requests * 2000
while True:
    control.request("GET", "/pushes?limit=1"); answer = json.loads(control.getresponse().read())
    if answer["accepted_count"] >= expected: break
    if time.monotonic() - started > 600: raise SystemExit(f"only {answer['accepted_count']} of {expected} accepted")
    time.sleep(0.05)
elapsed = time.monotonic() - started
open(os.path.join(state, "payload.json"), "w").write(json.dumps(answer["pushes"][0]["payload"], separators=(",", ":")))
open(os.path.join(state, "pushes_per_second"), "w").write("%.0f" % (expected / elapsed))
latencies.sort()
print(f"== {expected} pushes queued through {requests} start requests of 2000 devices")
print(f"   delivered in {elapsed:.1f} s: {expected / elapsed:,.0f} pushes/s (first request to last push accepted)")
print(f"   start API latency: p50 {statistics.median(latencies) * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
PY

psql "$conninfo" -Atc "SELECT 'queue→accepted latency: p50 ' || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - created_at)) * 1000)::numeric, 1) || ' ms, p99 ' || round((percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - created_at)) * 1000)::numeric, 1) || ' ms' FROM deliveries WHERE state = 'accepted'" | sed 's/^/   /'

echo "== h2load against the same simulator, same payload (-c 2 -m 100)"
h2load -n 100000 -c 2 -m 100 -d "$state/payload.json" -H 'apns-push-type: liveactivity' \
  -H 'apns-topic: com.example.openpush.demo.push-type.liveactivity' -H 'apns-priority: 10' \
  "http://127.0.0.1:$sim_port/3/device/aa0000000000000000000000000000000000000000000000000000000000000001" >"$state/h2load.txt" 2>&1
grep -E "finished in|requests:" "$state/h2load.txt" | sed 's/^/   /'
h2load_rate=$(grep -o 'finished in [^,]*, [0-9.]* req/s' "$state/h2load.txt" | grep -o '[0-9.]* req/s' | cut -d' ' -f1)
ours=$(cat "$state/pushes_per_second")
python3 -c "print('== ratio: openpush %s pushes/s vs h2load %.0f req/s = %.2fx' % ('$ours', float('$h2load_rate'), float('$ours') / float('$h2load_rate')))"

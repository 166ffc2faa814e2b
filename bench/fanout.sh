#!/usr/bin/env bash
# Fan-out at scale: N subscriptions (default 1,000,000, seeded straight into PostgreSQL), one
# notification to `Subscribed Users` through POST /notifications, delivered by one `openpush dev`
# process to the local APNs simulator. Prints the API latency, time to the first push accepted,
# pushes/s sustained, time to the last, the peak RSS of openpush, and h2load on the same payload.
# Usage: [LOOPS=4] bench/fanout.sh [subscriptions]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-1000000}
source bench/lib.sh
bench_require h2load python3 psql
bench_start ${LOOPS:-4}

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

bench_h2load_ratio "$(cat "$state/rate")" alert com.example.openpush.demo

#!/usr/bin/env bash
# Live Activity update coalescing: a producer at the send routes' rate limit — one update a second
# (the API admits 60 Live Activity requests per app and minute) to the same activity id, held by
# DEVICES devices (default 4: one activity each), for DURATION seconds (default 30) — against an app
# whose `live_activity_update_interval_seconds` is INTERVAL (default 5). One `openpush dev` process
# delivers to the local APNs simulator. Prints, per device's activity, the pushes the simulator
# received in each interval (must be one per interval), the shortest gap between two of them, and
# whether the last state sent was the last delivered; then the updates' records (coalesced, carried
# by the push that carried their state).
# Usage: [LOOPS=8] [DEVICES=4] [DURATION=30] [INTERVAL=5] bench/coalescing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
bench_require python3 openssl
bench_start ${LOOPS:-8}
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$state/app.p8" 2>/dev/null

bench_python DEVICES="${DEVICES:-4}" DURATION="${DURATION:-30}" INTERVAL="${INTERVAL:-5}" <<'PY'
import collections, datetime, lib, os, time
devices, seconds, interval = int(os.environ["DEVICES"]), int(os.environ["DURATION"]), int(os.environ["INTERVAL"])

org_key = open(os.path.join(lib.state, ".openpush", "org_api_key")).read().strip()
status, app = lib.call("POST", "/apps", {"name": "Bench coalescing", "apns_bundle_id": "com.example.bench.coalescing",
                                         "apns_p8": open(os.path.join(lib.state, "app.p8")).read(),
                                         "apns_key_id": "BENCHKEY02", "apns_team_id": "BENCHTEAM2",
                                         "live_activity_update_interval_seconds": interval},
                       {"Authorization": f"Key {org_key}"})
assert status == 200, (status, app)
sdk, rest = {"X-OP-SDK-Key": app["sdk_key"]}, {"Authorization": f"Key {app['basic_auth_key']}"}
tokens = ["c0%062x" % i for i in range(devices)]
for i in range(devices):
    status, answer = lib.call("POST", f"/v1/apps/{app['id']}/subscriptions", {"token": "cd%062x" % i}, sdk)
    assert status == 201, (status, answer)
    status, answer = lib.call("POST", f"/v1/apps/{app['id']}/live-activities",
                              {"token": "cd%062x" % i, "activity_id": "match-1", "activity_type": "BenchAttributes",
                               "update_token": tokens[i]}, sdk)
    assert status == 200, (status, answer)

# The producer: one update a second, each with the next score.
messages, started = [], time.monotonic()
for tick in range(1, seconds + 1):
    status, answer = lib.call("POST", f"/apps/{app['id']}/live_activities/match-1/notifications",
                              {"event": "update", "name": f"tick {tick}", "event_updates": {"tick": tick}}, rest)
    assert status == 201, (status, answer)
    messages.append(answer["id"])
    time.sleep(max(0, started + tick - time.monotonic()))
last_tick = seconds

def pushes():
    by_token = collections.defaultdict(list)
    for push in lib.control("/pushes")["pushes"]:
        if push["token"] in tokens:
            at = datetime.datetime.fromisoformat(push["received_at"].replace("Z", "+00:00")).timestamp()
            by_token[push["token"]].append((at, push["payload"]["aps"]["content-state"]["tick"]))
    return by_token

# The trailing push of the last interval: within one interval (and a little) of the last update.
deadline = time.monotonic() + interval + 10
while time.monotonic() < deadline and not all(p and p[-1][1] == last_tick for p in (pushes()[t] for t in tokens)):
    time.sleep(0.2)
time.sleep(1)
received = pushes()

print(f"== {seconds} updates, one a second, to activity id match-1 held by {devices} devices "
      f"(live_activity_update_interval_seconds: {interval})")
ok = True
for token in tokens:
    got = sorted(received[token])
    if not got:
        print(f"   …{token[-4:]}: nothing received"); ok = False; continue
    first = got[0][0]
    windows = collections.Counter(int((at - first + 0.5) // interval) for at, _ in got)
    per_window = [windows.get(k, 0) for k in range(max(windows) + 1)]
    gaps = [b[0] - a[0] for a, b in zip(got, got[1:])]
    last = got[-1][1]
    ok = ok and max(per_window) <= 1 and last == last_tick
    print(f"   activity on …{token[-4:]}: {len(got)} pushes for {seconds} updates; per {interval} s interval {per_window}; "
          f"shortest gap {min(gaps) if gaps else float('nan'):.2f} s; ticks delivered {[t for _, t in got]}; "
          f"last state delivered: tick {last} ({'the last sent' if last == last_tick else 'NOT the last sent'})")

counts = collections.Counter()
for message in messages:
    status, view = lib.call("GET", f"/notifications/{message}?app_id={app['id']}", None, rest)
    assert status == 200, (status, view)
    counts["successful"] += view["successful"]
    counts["coalesced"] += view["suppressed"]["coalesced"]
    counts["remaining"] += view["remaining"]
print(f"   records over the {seconds} updates × {devices} activities: {counts['successful']} sent, "
      f"{counts['coalesced']} coalesced, {counts['remaining']} still waiting")
print(f"   requirement, at most one push per interval per activity and the last state delivered: {'met' if ok else 'NOT met'}")
PY

#!/usr/bin/env bash
# Fairness between apps: app A (the demo app) sends one notification to N seeded subscriptions
# (default 1,000,000) and, while it is delivered, app B updates the Live Activity of its single
# device once every INTERVAL seconds (default 1), UPDATES times (default 60: the API admits 60
# Live Activity requests per app and minute), from A's first push accepted on. One `openpush dev`
# process delivers both to the local APNs simulator. Prints A's sustained pushes/s, B's
# queue→accepted latency (p50/p99; queued = when B's update request returned, accepted = the
# simulator's `received_at` of that push, read from its control API), and h2load on A's payload
# with the ratio. The bar: B's p99 under 1 s.
# SIM_RATE=N caps the simulator at N pushes/s (a slow APNs, see lib.sh): then A defaults to 20,000
# subscriptions and B to 10 updates 0.5 s apart, so they all fall within A's delivery, and there
# is no h2load ratio (h2load would meet the same cap). E.g. `SIM_RATE=4000 bench/fairness.sh`.
# (B's updates closer together than its round trip through APNs's queue need more delivery loops
# than the 2 that A's 6 jobs leave free: they then queue in the database, which is not measured here.)
# SHARED_KEY=1 gives B the demo app's APNs key (one team key for two apps), so A's and B's pushes
# share the client's connections and their queue.
# Usage: [LOOPS=8] [UPDATES=60] [INTERVAL=1] [SIM_RATE=N] bench/fairness.sh [subscriptions of A]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SIM_RATE:-}" ]; then
  total=${1:-20000}; updates=${UPDATES:-10}; interval=${INTERVAL:-0.5}
else
  total=${1:-1000000}; updates=${UPDATES:-60}; interval=${INTERVAL:-1}
fi
source bench/lib.sh
bench_require h2load python3 psql openssl
bench_start ${LOOPS:-8}

bench_seed_subscriptions "$total"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$state/app_b.p8" 2>/dev/null

bench_python TOTAL="$total" UPDATES="$updates" INTERVAL="$interval" SHARED_KEY="${SHARED_KEY:-}" CONNINFO="$conninfo" <<'PY'
import datetime, lib, math, os, subprocess, threading, time
total, updates, interval = int(os.environ["TOTAL"]), int(os.environ["UPDATES"]), float(os.environ["INTERVAL"])
assert updates >= 1, "UPDATES must be at least 1"

# App B: an app of its own (created with the organization key `dev` keeps), one device, one activity.
org_key = open(os.path.join(lib.state, ".openpush", "org_api_key")).read().strip()
status, app_b = lib.call("POST", "/apps", {"name": "Bench B", "apns_bundle_id": "com.example.bench.b",
                                           "apns_p8": open(os.path.join(lib.state, "app_b.p8")).read(),
                                           "apns_key_id": "BENCHKEY01", "apns_team_id": "BENCHTEAM1",
                                           # Every update measured: no coalescing (bench/coalescing.sh measures that).
                                           "live_activity_update_interval_seconds": 0},
                         {"Authorization": f"Key {org_key}"})
assert status == 200, (status, app_b)
if os.environ.get("SHARED_KEY") == "1":
    # Copied as stored, before B's first push loads its credential.
    subprocess.run(["psql", os.environ["CONNINFO"], "-q", "-c",
                    "UPDATE apps b SET apns_p8 = a.apns_p8, apns_key_id = a.apns_key_id, apns_team_id = a.apns_team_id "
                    f"FROM apps a WHERE a.id = '{lib.demo['id']}' AND b.id = '{app_b['id']}'"], check=True)
device, update_token = "bb%062x" % 1, "bc%062x" % 1
sdk = {"X-OP-SDK-Key": app_b["sdk_key"]}
status, answer = lib.call("POST", f"/v1/apps/{app_b['id']}/subscriptions", {"token": device}, sdk)
assert status == 201, (status, answer)
status, answer = lib.call("POST", f"/v1/apps/{app_b['id']}/live-activities",
                          {"token": device, "activity_id": "fair-b", "activity_type": "BenchAttributes",
                           "update_token": update_token}, sdk)
assert status == 200, (status, answer)

queued, received = {}, {}  # update number → unix time its request returned / the simulator received it
a_first, b_done = threading.Event(), threading.Event()
a_result = {}

def deliver_a():
    """A's progress from the simulator's count, B's pushes left out (B starts after A's first push,
    so that one is A's for sure)."""
    a_result["first"], a_result["last"] = lib.wait_accepted(total, started, others=lambda: len(received),
                                                            on_first=a_first.set)
    a_result["last_unix"] = started_unix + a_result["last"]
    pushes = lib.control("/pushes?limit=200")["pushes"]
    lib.save_payload(next(push for push in reversed(pushes) if push["token"] != update_token))

def watch_b():
    """B's pushes as the simulator recorded them; it keeps the newest 50,000, so a poll every
    0.2 s misses nothing below 250,000 pushes/s. Gives up 30 s after the last update once A is done."""
    while len(received) < updates and not (b_done.is_set() and not sending_a.is_alive() and time.time() > queued[updates - 1] + 30):
        for push in lib.control(f"/pushes?token={update_token}")["pushes"]:
            at = datetime.datetime.fromisoformat(push["received_at"].replace("Z", "+00:00")).timestamp()
            received.setdefault(push["payload"]["aps"]["content-state"]["step"], at)
        time.sleep(0.2)

started, started_unix = time.monotonic(), time.time()
api_latency = lib.notify_everyone()
sending_a, watching_b = threading.Thread(target=deliver_a, daemon=True), threading.Thread(target=watch_b, daemon=True)
sending_a.start(); watching_b.start()
while not a_first.wait(0.5):
    if not sending_a.is_alive(): raise SystemExit("A's delivery stopped before its first push")
rest_b = {"Authorization": f"Key {app_b['basic_auth_key']}"}
b_started = time.monotonic()
for step in range(updates):
    status, answer = lib.call("POST", f"/apps/{app_b['id']}/live_activities/fair-b/notifications",
                              {"event": "update", "name": f"step {step}", "event_updates": {"step": step}}, rest_b)
    queued[step] = time.time()
    assert status == 201, (status, answer)
    time.sleep(max(0, b_started + (step + 1) * interval - time.monotonic()))
b_done.set()
sending_a.join(); watching_b.join()

first, last = a_result["first"], a_result["last"]
lib.save_rate(total / (last - first))
latency = {step: received[step] - queued[step] for step in received}
during = [step for step in queued if queued[step] < a_result["last_unix"]]

milliseconds = lambda steps: sorted(latency[step] * 1000 for step in steps if step in latency)
rank = lambda values, p: values[math.ceil(p * len(values)) - 1]  # nearest rank

def summary(steps):
    values = milliseconds(steps)
    if not values: return "none arrived"
    return f"p50 {rank(values, 0.5):.1f} ms, p99 {rank(values, 0.99):.1f} ms, max {values[-1]:.1f} ms ({len(values)} updates)"

print(f"== app A: one notification to {total:,} subscriptions; app B meanwhile: {updates} Live Activity updates "
      f"of one device, one every {interval:g} s from A's first push on")
print(f"   A: POST /notifications answered in {api_latency * 1000:.1f} ms; first push accepted after {first:.2f} s, "
      f"last after {last:.1f} s; sustained {total / (last - first):,.0f} pushes/s")
print(f"   B: {len(received)} of {updates} updates accepted by the simulator"
      + (f" ({updates - len(received)} never arrived: superseded by the next, or failed)" if len(received) < updates else "")
      + f"; {len(during)} were queued while A was still being delivered")
print("   B queue→accepted (simulator's received_at − update request returned):")
for label, steps in [("all updates", queued), ("queued during A's delivery", during)]:
    print(f"     {label + ':':<28} {summary(steps)}")
met = len(received) == updates and rank(milliseconds(queued), 0.99) < 1000
print(f"   requirement, B's p99 under 1 s with every update delivered: {'met' if met else 'NOT met'}")
PY

if [ -z "${SIM_RATE:-}" ]; then
  bench_h2load_ratio "$(cat "$state/rate")" alert com.example.openpush.demo
else
  echo "== no h2load ratio: the simulator answers at most $SIM_RATE pushes/s"
fi

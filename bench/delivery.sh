#!/usr/bin/env bash
# Delivery throughput: 100,000 Live Activity starts queued through the public routes (50
# requests × 2000 devices, registered through the SDK routes and then analyzed) while no worker
# runs, then one `openpush worker` process delivers them to the local APNs simulator, then h2load
# once against the same simulator with the same payload: three such rounds. Prints the API
# latency of a 2000-device start, and per round pushes/s from the worker's start to the last
# push accepted, the CPU the worker, PostgreSQL and the simulator spent per 1,000 pushes of that
# drain, h2load's rate and their ratio; the figure is the median round's ratio. In the last
# round, before its h2load run, the queue→accepted latency (p50/p99) while the worker runs and
# requests arrive — paced at half the drain rate just measured, and then as a burst faster than
# any worker sends.
# Usage: [LOOPS=8] bench/delivery.sh [requests]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-50}
source bench/lib.sh
bench_require h2load python3 psql
bench_start 0

BENCH_STATE="$state" API_PORT=$api_port CONTROL_PORT=$control_port REQUESTS=$requests BINARY="$binary" CONNINFO="$conninfo" \
  SIM_PORT=$sim_port SIM_PID=$simulator PYTHONPATH="$PWD/bench" PYTHONDONTWRITEBYTECODE=1 python3 - <<'PY'
import datetime, http.client, json, os, signal, statistics, subprocess, time
import lib
state, port, requests = os.environ["BENCH_STATE"], int(os.environ["API_PORT"]), int(os.environ["REQUESTS"])
app, rest, sdk = lib.demo["id"], lib.demo["rest_key"], lib.demo["sdk_key"]
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
# Statistics as autovacuum leaves them within a minute: planned on the empty tables' estimates,
# the audience join of a start ran as nested loops and took twice as long.
subprocess.run(["psql", os.environ["CONNINFO"], "-q", "-c", "ANALYZE subscriptions, push_to_start_tokens"], check=True)

control = http.client.HTTPConnection("127.0.0.1", int(os.environ["CONTROL_PORT"]))

def accepted():
    control.request("GET", "/pushes?limit=1")
    return json.loads(control.getresponse().read())

returned = {}  # activity id → when its start request returned (wall clock)

def queue(count, tag, interval=0.0):
    latencies = []
    for n in range(count):
        if n: time.sleep(max(0.0, interval - latencies[-1]))
        body = {"event": "start", "activity_id": f"bench-{tag}-{n}", "name": "bench",
                "event_attributes": {"orderNumber": str(n)}, "event_updates": {"status": "out", "etaMinutes": 24},
                "headings": {"en": "On the way"}, "contents": {"en": "Arriving in about {{ eta | default: 24 }} minutes"},
                "included_segments": ["Subscribed Users"]}
        t = time.monotonic()
        status, answer = call("POST", f"/apps/{app}/activities/activity/BenchAttributes", body, {"Authorization": f"Key {rest}"})
        latencies.append(time.monotonic() - t)
        returned[body["activity_id"]] = time.time()
        assert status == 201, (status, answer)
    return sorted(latencies)

def worker():
    env = dict(os.environ, OPENPUSH_DATABASE_URL=os.environ["CONNINFO"], OPENPUSH_LOG_LEVEL=os.environ.get("WORKER_LOG", "warning"), OPENPUSH_DELIVERY_LOOPS=os.environ.get("LOOPS", "8"),
               OPENPUSH_DB_POOL_SIZE="16", OPENPUSH_APNS_PRODUCTION_URL=f"http://127.0.0.1:{os.environ['SIM_PORT']}",
               OPENPUSH_APNS_DEVELOPMENT_URL=f"http://127.0.0.1:{os.environ['SIM_PORT']}")
    log = open(os.path.join(state, "worker.log"), "w")
    return subprocess.Popen([os.environ["BINARY"], "worker"], env=env, stdout=log, stderr=log)

def wait_for(expected, since):
    while True:
        answer = accepted()
        if answer["accepted_count"] >= expected: return answer, time.monotonic() - since
        if time.monotonic() - since > 600: raise SystemExit(f"only {answer['accepted_count']} of {expected} accepted")
        time.sleep(0.02)

# 1. Three rounds: queue everything with no worker running, time one worker draining it, then
#    h2load once. A round's ratio pairs a drain with an h2load run seconds apart, so a slow moment
#    of the shared machine weighs on both sides of one ratio, not on one side of the figure.
expected = requests * 2000

def new_minute():
    """The app may make 60 Live Activity requests a minute: each round stands for a minute later."""
    subprocess.run(["psql", os.environ["CONNINFO"], "-q", "-c",
                    f"DELETE FROM rate_limit_events WHERE app_id = '{app}' AND bucket = 'live_activity_sends'"], check=True)

def drain(tag):
    control.request("DELETE", "/pushes"); control.getresponse().read()
    new_minute()
    latencies = queue(requests, tag)
    started = time.monotonic()
    process = worker()
    processes = lambda: (lib.cpu_seconds(process.pid), lib.postgres_cpu_seconds(), lib.cpu_seconds(os.environ["SIM_PID"]))
    before = processes()
    answer, elapsed = wait_for(expected, started)
    spent = [(after - earlier) * 1e6 / expected for after, earlier in zip(processes(), before)]
    lib.save_payload(answer["pushes"][0])
    return process, latencies, expected / elapsed, elapsed, spent

def stop(process):
    process.send_signal(signal.SIGTERM); process.wait()

def h2load():
    return lib.h2load("liveactivity", "com.example.openpush.demo.push-type.liveactivity")

print(f"== {expected} pushes queued through {requests} start requests of 2000 devices, three rounds")
rounds, latencies = [], []
for number in (1, 2, 3):
    process, queued, rate, elapsed, spent = drain(f"drain{number}")
    latencies += queued
    print(f"   round {number}: one worker process drained them in {elapsed:.1f} s: {rate:,.0f} pushes/s (worker start to"
          f" last accepted); CPU per 1,000 pushes: worker {spent[0]:.0f} ms, PostgreSQL {spent[1]:.0f} ms, simulator {spent[2]:.0f} ms")
    if number < 3:
        stop(process)
        rounds.append((rate, h2load()))
latencies.sort()
print(f"   start API latency (2000 deliveries written per request, {len(latencies)} requests): p50 {statistics.median(latencies) * 1000:.1f} ms, "
      f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
# 2. Live: the worker runs while 5 more requests arrive, paced and then as a burst (the app may
#    make 60 Live Activity requests a minute); latency from each request's return to the
#    simulator's own receive time of each of its pushes. Paced, each request comes after the
#    worker had time to send the last (half the drain rate): how long a send waits on a live
#    system. As a burst, 10,000 pushes arrive within about 0.15 s, more than h2load itself sends
#    in that time: the figure is mostly the backlog's own length.
def live(tag, interval):
    control.request("DELETE", "/pushes"); control.getresponse().read()
    queue(5, tag, interval)
    wait_for(10000, time.monotonic())
    control.request("GET", "/pushes?limit=10000")
    latencies = []
    for push in json.loads(control.getresponse().read())["pushes"]:
        activity = push["payload"]["aps"]["attributes"]["openpush"]["activity_id"]
        if activity in returned and activity.startswith(f"bench-{tag}-"):
            received = datetime.datetime.fromisoformat(push["received_at"].replace("Z", "+00:00")).timestamp()
            latencies.append(received - returned[activity])
    latencies.sort()
    return latencies

pace = 2000 / (0.5 * rate)
new_minute()
for tag, interval, what in (("paced", pace, f"one 2000-device start every {pace * 1000:.0f} ms"),
                            ("burst", 0.0, "5 starts back to back")):
    latencies = live(tag, interval)
    print(f"   queue→accepted latency while live, {what} ({len(latencies):,} pushes, simulator's receive time − request "
          f"returned): p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, p99 {latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms")
stop(process)
rounds.append((rate, h2load()))
for number, (ours, theirs) in enumerate(rounds, 1):
    print(f"   round {number}: openpush {ours:,.0f} pushes/s vs h2load {theirs:,.0f} req/s = {ours / theirs:.2f}x")
ours, theirs = sorted(rounds, key=lambda pair: pair[0] / pair[1])[1]
print(f"== ratio: openpush {ours:.0f} pushes/s vs h2load {theirs:.0f} req/s (the median of three rounds) = {ours / theirs:.2f}x")
PY

#!/usr/bin/env bash
# Scale-out cost model: the fan-out benchmark (N subscriptions, default 200,000, seeded straight
# into PostgreSQL; one notification to `Subscribed Users` through POST /notifications) delivered
# by 1 and then by 2 `openpush worker` processes, beside one `openpush dev` with no delivery loops
# that plays `serve` (it answers HTTP and hosts the embedded PostgreSQL). For each run it prints
# pushes/s and, per 1,000 pushes, the CPU time (utime + stime from /proc/<pid>/stat) spent in
# PostgreSQL (the postmaster with its reaped children, plus every live backend) and in the
# OpenPush processes, the WAL written (pg_current_wal_lsn() before and after), the transactions
# committed and the client connections open. Then: the delivery records' size on disk, the cost
# of a read route, and h2load sending the same payload to the same simulator, whose rate and own
# CPU per 1,000 requests are the yardstick each figure is divided by. docs/operating/scaling.md reads them.
# Usage: [LOOPS=8] [POOL=16] [READS=20] bench/scale.sh [subscriptions]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-200000}
source bench/lib.sh
bench_require h2load python3 psql
bench_start 0

bench_seed_subscriptions "$total"

bench_python TOTAL="$total" BINARY="$binary" CONNINFO="$conninfo" SIM_PORT="$sim_port" SIM_PID="$simulator" <<'PY'
import http.client, os, signal, subprocess, time
import lib
total, state = int(os.environ["TOTAL"]), os.environ["BENCH_STATE"]
simulator = f"http://127.0.0.1:{os.environ['SIM_PORT']}"

# CPU seconds so far: of the whole PostgreSQL server (lib), and of some processes.
postgres_cpu = lib.postgres_cpu_seconds

def cpu(pids):
    return sum(lib.cpu_seconds(pid) for pid in pids)

def sql(query):
    return subprocess.run(["psql", os.environ["CONNINFO"], "-At", "-c", query], check=True, capture_output=True, text=True).stdout.strip()

def client_connections():
    return int(sql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"))

def worker(n):
    env = dict(os.environ, OPENPUSH_DATABASE_URL=os.environ["CONNINFO"], OPENPUSH_LOG_LEVEL="info",
               OPENPUSH_DELIVERY_LOOPS=os.environ.get("LOOPS", "8"), OPENPUSH_DB_POOL_SIZE=os.environ.get("POOL", "16"),
               OPENPUSH_APNS_PRODUCTION_URL=simulator, OPENPUSH_APNS_DEVELOPMENT_URL=simulator)
    path = os.path.join(state, f"worker-{n}.log")
    process = subprocess.Popen([os.environ["BINARY"], "worker"], env=env, stdout=open(path, "w"), stderr=subprocess.STDOUT)
    return process, path

def wait_delivering(path, process):
    for _ in range(300):
        if "delivering" in open(path).read(): return
        if process.poll() is not None: raise SystemExit(f"worker exited:\n{open(path).read()}")
        time.sleep(0.05)
    raise SystemExit(f"worker did not start:\n{open(path).read()}")

def notify(run):
    body = {"app_id": lib.demo["id"], "contents": {"en": f"Your order is on its way (run {run})"},
            "headings": {"en": "OpenPush"}, "included_segments": ["Subscribed Users"]}
    status, answer = lib.call("POST", "/notifications", body, {"Authorization": f"Key {lib.demo['rest_key']}"})
    assert status == 200, (status, answer)
    return answer["id"]

server, sim = int(os.environ["SERVER_PID"]), int(os.environ["SIM_PID"])
results = []
for run, workers in enumerate([1, 2], start=1):
    processes = [worker(n) for n in range(workers)]
    for process, path in processes: wait_delivering(path, process)
    openpush = [server] + [process.pid for process, _ in processes]
    already = lib.control("/pushes?limit=0")["accepted_count"]
    wal = sql("SELECT pg_current_wal_lsn()")
    commits = int(sql("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"))
    pg0, op0, sim0 = postgres_cpu(), cpu(openpush), cpu([sim])
    peak = []
    started = time.monotonic()
    message = notify(run)
    first, last = lib.wait_accepted(total, started, others=lambda: already, on_first=lambda: peak.append(client_connections()))
    pg1, op1, sim1 = postgres_cpu(), cpu(openpush), cpu([sim])
    wal_bytes = int(float(sql(f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{wal}')")))
    # Committed transactions of the database, psql's own two included (statistics lag ~0.5 s).
    time.sleep(1)
    commits = int(sql("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) - commits
    connections = max(peak + [client_connections()])
    for process, _ in processes: process.send_signal(signal.SIGTERM)
    for process, _ in processes: process.wait()
    if run == 1: lib.save_payload(lib.control("/pushes?limit=1")["pushes"][0])
    results.append(dict(workers=workers, rate=total / (last - first), first=first, span=last, postgres=pg1 - pg0, openpush=op1 - op0,
                        simulator=sim1 - sim0, wal=wal_bytes, connections=connections, commits=commits))
    r = results[-1]
    print(f"   run {run}, {workers} worker(s): {r['rate']:,.0f} pushes/s; CPU s: PostgreSQL {r['postgres']:.2f}, OpenPush {r['openpush']:.2f}, "
          f"simulator {r['simulator']:.2f}; WAL {wal_bytes:,} bytes", flush=True)

# Storage: the delivery records of both runs (every partition of `delivery_rows` and
# `delivery_batches`, migration 0045) per push.
stored = int(sql("SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits "
                 "WHERE inhparent IN ('delivery_rows'::regclass, 'delivery_batches'::regclass)"))
records = int(sql("SELECT count(*) FROM deliveries"))
# The stats routes' rollup (migration 0035): one row per app and second with records.
rollup = int(sql("SELECT coalesce(pg_total_relation_size(to_regclass('delivery_stats')), 0)"))

# A read route, for the read-replica step: GET /notifications/{id} of the last message (its counts
# are kept on the message row since migration 0033, not counted from its records) on one
# keep-alive connection.
reads = int(os.environ.get("READS", "20"))
api = http.client.HTTPConnection("127.0.0.1", int(os.environ["API_PORT"]))
headers = {"Authorization": f"Key {lib.demo['rest_key']}"}
pg0, op0, read_started = postgres_cpu(), cpu([server]), time.monotonic()
for _ in range(reads):
    api.request("GET", f"/notifications/{message}?app_id={lib.demo['id']}", headers=headers)
    response = api.getresponse()
    response.read()
    assert response.status == 200, response.status
read_rate = reads / (time.monotonic() - read_started)
read_pg_ms, read_op_ms = (postgres_cpu() - pg0) * 1e6 / reads, (cpu([server]) - op0) * 1e6 / reads

# The yardstick: h2load, same payload, same simulator, its own CPU from wait4.
requests = 100000
simulator_before = cpu([sim])
h2load = subprocess.Popen(["h2load", "-n", str(requests), "-c", "2", "-m", "100", "-d", os.path.join(state, "payload.json"),
                           "-H", "apns-push-type: alert", "-H", "apns-topic: com.example.openpush.demo", "-H", "apns-priority: 10",
                           f"{simulator}/3/device/aa0000000000000000000000000000000000000000000000000000000000000001"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
output = h2load.stdout.read()
_, status, usage = os.wait4(h2load.pid, 0)
assert status == 0 and f"{requests} succeeded" in output, output
h2load_rate = float(output.split(" req/s")[0].rsplit(",", 1)[1])
h2load_ms = (usage.ru_utime + usage.ru_stime) * 1000 / requests * 1000
h2load_sim_ms = (cpu([sim]) - simulator_before) * 1000 / requests * 1000
max_connections = int(sql("SHOW max_connections"))
settings = sql("SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ' ' ORDER BY name) FROM pg_settings "
               "WHERE name IN ('shared_buffers', 'fsync', 'synchronous_commit', 'wal_level', 'full_page_writes')")
version = sql("SHOW server_version")

print(f"== {os.cpu_count()} cores; {total:,} subscriptions per run; {os.environ.get('LOOPS', '8')} delivery loops and a pool of "
      f"{os.environ.get('POOL', '16')} per worker")
print(f"== PostgreSQL {version} (the embedded cluster of `openpush dev`, stock settings): max_connections={max_connections} {settings}")
print(f"== h2load (-c 2 -m 100, {requests:,} requests, same payload and simulator): {h2load_rate:,.0f} req/s, "
      f"its CPU {h2load_ms:.1f} ms per 1,000 requests (simulator {h2load_sim_ms:.1f} ms)")
for r in results:
    per = lambda seconds: seconds * 1000 / total * 1000  # ms of CPU per 1,000 pushes
    print(f"== {r['workers']} worker(s) + 1 serve: {r['rate']:,.0f} pushes/s sustained (first accepted {r['first']:.2f} s, last {r['span']:.1f} s after the POST) "
          f"= {r['rate'] / h2load_rate:.2f}x h2load")
    print(f"   CPU per 1,000 pushes: PostgreSQL {per(r['postgres']):.0f} ms ({per(r['postgres']) / h2load_ms:.2f}x h2load), "
          f"OpenPush {per(r['openpush']):.0f} ms ({per(r['openpush']) / h2load_ms:.2f}x h2load), "
          f"simulator {per(r['simulator']):.0f} ms")
    print(f"   WAL {r['wal'] / total:,.0f} bytes per push ({r['wal'] / 2**20:,.0f} MiB); "
          f"client connections open: {r['connections']}; {r['commits'] * 1000 / total:.1f} commits per 1,000 pushes")
print(f"== delivery records: {records:,} rows, {stored / 2**20:,.0f} MiB on disk with indexes = {stored / records:,.0f} bytes per push; "
      f"stats rollup {rollup / 2**10:,.0f} KiB")
print(f"== GET /notifications/{{id}} x {reads:,} on one connection: {read_rate:,.0f} requests/s; CPU per 1,000 requests: "
      f"PostgreSQL {read_pg_ms:.0f} ms, OpenPush {read_op_ms:.0f} ms")
PY

#!/usr/bin/env bash
# Transactional sends: `POST /notifications` to one user by external_id (wrk -t2 -c32 for
# DURATION seconds, default 20), each delivered by the same `openpush dev` process to the local APNs
# simulator. Half the requests carry an Idempotency-Key, a quarter name a Liquid template, the
# rest carry Liquid of their own (bench/wrk/notification.lua); records, counts and events as
# always. Prints wrk on `GET /health` in the same run (the request path's limit), then for the
# sends: requests/s, API latency p50/p99, delivered/s (first request to last push accepted),
# queue→accepted p50/p99 (the message's creation to its record's commit), CPU per request of
# OpenPush and of PostgreSQL, commits and WAL bytes per request, and the ratio to GET /health.
# STATEMENTS=1 adds the statements per request and the costliest ones (pg_stat_statements).
# CONNECTIONS=N sends over N connections instead of 32 (2: a trickle, where claims per message show).
# Usage: [LOOPS=8] [DURATION=20] [USERS=100000] [CONNECTIONS=32] bench/transactional.sh     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
bench_require wrk python3 psql
bench_start ${LOOPS:-8}
bench_track_statements
users=${USERS:-100000}
started=$(date +%s.%N)
psql "$conninfo" -q -c "INSERT INTO subscriptions (id, app_id, token, external_id, first_session_at, last_session_at)
    SELECT 'sub_t' || lpad(i::text, 8, '0'), '$app', 'aa' || md5(i::text) || md5('t' || i), 'u-' || i, now(), now()
    FROM generate_series(1, $users) AS i" \
  -c "INSERT INTO users (id, app_id, created_at, updated_at)
    SELECT 'usr_t' || lpad(i::text, 8, '0'), '$app', now(), now() FROM generate_series(1, $users) AS i" \
  -c "INSERT INTO user_aliases (app_id, user_id, label, value)
    SELECT '$app', 'usr_t' || lpad(i::text, 8, '0'), 'external_id', 'u-' || i FROM generate_series(1, $users) AS i" -c "ANALYZE"
echo "== seeded $users users of one device each"

STATEMENTS="${STATEMENTS:-}" bench_python SECONDS_="${DURATION:-20}" CONNECTIONS="${CONNECTIONS:-32}" USERS="$users" CONNINFO="$conninfo" SIM_PID="$simulator" <<'PY'
import lib, os, time
seconds, users, conninfo = int(os.environ["SECONDS_"]), int(os.environ["USERS"]), os.environ["CONNINFO"]
connections = int(os.environ["CONNECTIONS"])
app, rest = lib.demo["id"], lib.demo["rest_key"]
status, template = lib.call("POST", "/templates", {"app_id": app, "name": "shipped", "headings": {"en": "Shipped"},
    "contents": {"en": "{% if message.custom_data.order %}Order {{ message.custom_data.order }}{% else %}Your order{% endif %} has shipped"}},
    {"Authorization": f"Key {rest}"})
assert status == 200, (status, template)
# Warm up: the first sends load the credential and open the APNs connections.
for n in range(20):
    status, answer = lib.call("POST", "/notifications", {"app_id": app, "include_aliases": {"external_id": [f"u-{n + 1}"]},
                              "target_channel": "push", "contents": {"en": "warm-up"}}, {"Authorization": f"Key {rest}"})
    assert status == 200 and answer.get("id"), (status, answer)
lib.wait_accepted(20, time.monotonic())

health = lib.wrk("/health", 10)
print(f"== GET /health (wrk -t2 -c32 -d10s): {health['rate']:,.0f} req/s, p50 {health['p50']:.2f} ms, p99 {health['p99']:.2f} ms")

already = lib.control("/pushes?limit=0")["accepted_count"]
since = lib.psql(conninfo, "SELECT now()")
cpu = lambda: (lib.cpu_seconds(os.environ["SERVER_PID"]), lib.postgres_cpu_seconds())
lib.reset_statements(conninfo)
before, commits = cpu(), lib.database_figures(conninfo)
wal = lib.psql(conninfo, "SELECT pg_current_wal_lsn()")
begun = time.monotonic()
sends = lib.wrk("/notifications", seconds, connections=connections, script="notification.lua",
                env={"APP": app, "REST": rest, "USERS": str(users), "TEMPLATE": template["id"]})
sent = int(lib.psql(conninfo, f"SELECT count(*) FROM messages WHERE app_id = '{app}' AND created_at >= '{since}'"))
_, last = lib.wait_accepted(sent, begun, others=lambda: already, limit=600)
spent = [(b - a) / sent * 1000 for a, b in zip(before, cpu())]
commits = (lib.database_figures(conninfo) - commits) / sent
wal = int(lib.psql(conninfo, f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{wal}')::bigint")) / sent
p50, p99 = lib.psql(conninfo, f"""
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) * 1000, percentile_cont(0.99) WITHIN GROUP (ORDER BY s) * 1000
    FROM (SELECT extract(epoch FROM d.finished_at - m.created_at) AS s FROM deliveries d JOIN messages m ON m.id = d.message_id
          WHERE m.app_id = '{app}' AND m.created_at >= '{since}' AND d.state = 'accepted') AS q""").split("|")
print(f"== POST /notifications to one user (wrk -t2 -c{connections} -d{seconds}s): {sends['rate']:,.0f} req/s, p50 {sends['p50']:.1f} ms,"
      f" p99 {sends['p99']:.1f} ms, non-2xx {sends['non2xx']}")
print(f"   {sent:,} messages delivered at {sent / last:,.0f}/s (first request to last accepted, {last:.1f} s);"
      f" queue→accepted p50 {float(p50):.0f} ms, p99 {float(p99):.0f} ms")
print(f"   per request: OpenPush {spent[0]:.2f} ms CPU, PostgreSQL {spent[1]:.2f} ms CPU, {commits:.1f} commits, {wal:,.0f} B of WAL")
print(f"== ratio to GET /health: requests {sends['rate'] / health['rate']:.3f}x, delivered {sent / last / health['rate']:.3f}x")
open(os.path.join(lib.state, "requests"), "w").write(str(sent))
PY
bench_statements "$(cat "$state/requests")"

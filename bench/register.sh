#!/usr/bin/env bash
# Device registrations: `POST /v1/apps/{id}/subscriptions` with the SDK key (wrk -t2 -c32 for
# DURATION seconds, default 20): four in five a new token with tags, language, timezone and an
# external_id (its user is created), one in five a re-registration of a known token, which
# counts a session (bench/wrk/register.lua). Prints wrk on `GET /health` in the same run, then
# requests/s, latency p50/p99, CPU per request of OpenPush and of PostgreSQL, commits per
# request, WAL bytes per request, and the ratio to GET /health. STATEMENTS=1 adds the statements
# per request and the costliest ones (pg_stat_statements).
# Usage: [DURATION=20] [KNOWN=100000] bench/register.sh     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
bench_require wrk python3 psql
bench_start 0
bench_track_statements
known=${KNOWN:-100000}
psql "$conninfo" -q -c "INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
    SELECT 'sub_k' || lpad(i::text, 8, '0'), '$app', 'ca' || lpad(to_hex(i), 62, '0'), now(), now()
    FROM generate_series(1, $known) AS i" -c "ANALYZE subscriptions"
echo "== seeded $known known devices"

STATEMENTS="${STATEMENTS:-}" bench_python SECONDS_="${DURATION:-20}" KNOWN="$known" CONNINFO="$conninfo" <<'PY'
import lib, os
seconds, known, conninfo = int(os.environ["SECONDS_"]), int(os.environ["KNOWN"]), os.environ["CONNINFO"]
app, sdk = lib.demo["id"], lib.demo["sdk_key"]
health = lib.wrk("/health", 10)
print(f"== GET /health (wrk -t2 -c32 -d10s): {health['rate']:,.0f} req/s, p50 {health['p50']:.2f} ms, p99 {health['p99']:.2f} ms")
cpu = lambda: (lib.cpu_seconds(os.environ["SERVER_PID"]), lib.postgres_cpu_seconds())
lib.reset_statements(conninfo)
before, commits = cpu(), lib.database_figures(conninfo)
wal = lib.psql(conninfo, "SELECT pg_current_wal_lsn()")
sessions = int(lib.psql(conninfo, f"SELECT sum(session_count) FROM subscriptions WHERE app_id = '{app}'"))
run = lib.wrk(f"/v1/apps/{app}/subscriptions", seconds, script="register.lua", env={"APP": app, "SDK": sdk, "KNOWN": str(known)})
spent = [(b - a) / run["requests"] * 1000 for a, b in zip(before, cpu())]
commits = (lib.database_figures(conninfo) - commits) / run["requests"]
wal = int(lib.psql(conninfo, f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{wal}')::bigint")) / run["requests"]
counted = int(lib.psql(conninfo, f"SELECT sum(session_count) FROM subscriptions WHERE app_id = '{app}'")) - sessions
print(f"== POST /v1/apps/{{id}}/subscriptions (wrk -t2 -c32 -d{seconds}s): {run['rate']:,.0f} req/s, p50 {run['p50']:.1f} ms,"
      f" p99 {run['p99']:.1f} ms, non-2xx {run['non2xx']}; sessions added {counted:,} for {run['requests']:,} requests")
print(f"   per request: OpenPush {spent[0]:.2f} ms CPU, PostgreSQL {spent[1]:.2f} ms CPU, {commits:.1f} commits, {wal:,.0f} B of WAL")
print(f"== ratio to GET /health: {run['rate'] / health['rate']:.3f}x")
open(os.path.join(lib.state, "requests"), "w").write(str(run["requests"]))
PY
bench_statements "$(cat "$state/requests")"

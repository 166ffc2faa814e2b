# Shared by the benchmarks: sourced, not run. Starts the local APNs simulator and `openpush dev`
# pointed at it, in a private state directory that is removed on exit.
# After `bench_start LOOPS`: $binary, $state, $api_port, $sim_port, $control_port, $conninfo,
# $app, $rest, $sdk (the demo app and its keys).

bench_require() {
  binary=$PWD/.build/release/openpush
  [ -x "$binary" ] || { echo "build first: swift build -c release" >&2; exit 1; }
  for tool in "$@"; do command -v "$tool" >/dev/null || { echo "$tool is missing (make bench installs it)" >&2; exit 1; }; done
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

bench_cleanup() {
  # $bench_extra_pids: processes a bench started before `bench_start` (fcm.sh's FCM simulator).
  kill -TERM "${server:-}" "${simulator:-}" ${bench_extra_pids:-} 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$state"
}

# $1: delivery loops in the `dev` process (0: it only answers HTTP). SIM_RATE=N caps the
# simulator at N pushes/s (`apns-sim --max-rate`): a slow APNs, whose answers wait their turn.
# POOL=N sets the process's PostgreSQL pool (default 16).
bench_start() {
  api_port=$(free_port); sim_port=$(free_port); control_port=$(free_port)
  state=$(mktemp -d); chmod 755 "$state"
  trap bench_cleanup EXIT
  "$binary" apns-sim --accept-any-token ${SIM_RATE:+--max-rate "$SIM_RATE"} --port "$sim_port" --control-port "$control_port" >"$state/sim.log" 2>&1 &
  simulator=$!
  (cd "$state" && OPENPUSH_LISTEN=127.0.0.1:$api_port OPENPUSH_LOG_LEVEL=warning OPENPUSH_RESOURCES_DIR="$OLDPWD" \
    OPENPUSH_APNS_PRODUCTION_URL=http://127.0.0.1:$sim_port OPENPUSH_APNS_DEVELOPMENT_URL=http://127.0.0.1:$sim_port \
    OPENPUSH_DB_POOL_SIZE=${POOL:-16} OPENPUSH_DELIVERY_LOOPS=$1 exec "$binary" dev >"$state/dev.log" 2>&1) &
  server=$!
  for _ in $(seq 1 150); do
    [ -f "$state/.openpush/demo_app.json" ] && curl -fs "http://127.0.0.1:$api_port/ready" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fs "http://127.0.0.1:$api_port/ready" >/dev/null || { echo "openpush did not start:" >&2; cat "$state/dev.log" >&2; exit 1; }
  conninfo="host=$state/.openpush/postgres/socket port=$(cat "$state/.openpush/postgres/port") user=postgres dbname=openpush"
  app=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$state/.openpush/demo_app.json")
  rest=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rest_key'])" "$state/.openpush/demo_app.json")
  sdk=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['sdk_key'])" "$state/.openpush/demo_app.json")
  # The key `dev` sealed the demo app's .p8 with: a `worker` started beside it needs it to open it.
  OPENPUSH_SECRET_KEY=$(cat "$state/.openpush/secret_key"); export OPENPUSH_SECRET_KEY
}

# $1 subscriptions of the demo app, seeded straight into PostgreSQL (tokens 'aa' || md5(i) || md5('t' || i)).
bench_seed_subscriptions() {
  local started
  started=$(date +%s.%N)
  psql "$conninfo" -q -c "INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
    SELECT 'sub_f' || lpad(i::text, 8, '0'), '$app', 'aa' || md5(i::text) || md5('t' || i), now(), now()
    FROM generate_series(1, $1) AS i" -c "ANALYZE subscriptions"
  echo "== seeded $1 subscriptions in $(python3 -c "import time; print('%.1f' % (time.time() - $started))") s"
}

# Runs the Python script on stdin with bench/lib.py importable (`import lib`) and the ports,
# state directory and server pid of `bench_start` in its environment (no __pycache__ left in
# bench/); $@: more VAR=value.
bench_python() {
  env PYTHONPATH="$PWD/bench" PYTHONDONTWRITEBYTECODE=1 BENCH_STATE="$state" API_PORT="$api_port" CONTROL_PORT="$control_port" SERVER_PID="$server" \
    SIM_PORT="$sim_port" "$@" python3 -
}

# h2load against the simulator with $state/payload.json, three times, and the ratio of $1
# (pushes/s) to their median (`h2load_ratio` in lib.py). $2: push type, $3: topic.
bench_h2load_ratio() {
  bench_python RATE="$1" PUSH_TYPE="$2" TOPIC="$3" <<'PY'
import lib, os
lib.h2load_ratio(float(os.environ["RATE"]), os.environ["PUSH_TYPE"], os.environ["TOPIC"])
PY
}

# STATEMENTS=1: restarts the embedded PostgreSQL of `bench_start` with pg_stat_statements, so
# `bench_statements N` can print the statements per request afterwards. The server reconnects
# its pool; the restart happens before anything is measured.
bench_track_statements() {
  [ -n "${STATEMENTS:-}" ] || return 0
  local data bindir
  data=$(readlink -f "$state/.openpush/postgres")/data
  bindir=/usr/lib/postgresql/15/bin
  [ -x "$bindir/pg_ctl" ] || bindir=$(dirname "$(command -v pg_ctl)")
  psql "$conninfo" -q -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$bindir/pg_ctl" -D "$data" -m fast -w restart >/dev/null
  else "$bindir/pg_ctl" -D "$data" -m fast -w restart >/dev/null; fi
  psql "$conninfo" -q -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "SELECT pg_stat_statements_reset()" >/dev/null
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$api_port/ready" >/dev/null 2>&1 && break; sleep 0.2; done
}

# After `bench_track_statements`: statements per request ($1 requests) since the reset, and the
# 12 that took longest (calls per request, mean ms per call, the statement's start).
bench_statements() {
  [ -n "${STATEMENTS:-}" ] || return 0
  psql "$conninfo" -Atq -c "SELECT '== statements per request: ' || round(sum(calls)::numeric / $1, 1) FROM pg_stat_statements
      WHERE query NOT IN ('BEGIN', 'COMMIT') AND query NOT LIKE '%pg_stat_statements%'"
  psql "$conninfo" -q -c "SELECT round(calls::numeric / $1, 2) AS per_request, round((total_exec_time / calls)::numeric, 3) AS mean_ms,
      left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS statement FROM pg_stat_statements
      WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 12"
}

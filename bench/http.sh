#!/usr/bin/env bash
# Requests per second for GET /health (no database) and GET /ready (two queries per request),
# measured with wrk against a release build on an embedded PostgreSQL.
# Usage: bench/http.sh [seconds] [connections]    (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
connections=${2:-64}
binary=.build/release/openpush
[ -x "$binary" ] || { echo "build first: swift build -c release" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
state=$(mktemp -d)
chmod 755 "$state"
log="$state/openpush.log"
(cd "$state" && OPENPUSH_LISTEN=127.0.0.1:$port OPENPUSH_LOG_LEVEL=warning OPENPUSH_RESOURCES_DIR="$OLDPWD" \
  exec "$OLDPWD/$binary" dev >"$log" 2>&1) &
server=$!
cleanup() { kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$state"; }
trap cleanup EXIT

for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://127.0.0.1:$port/ready" >/dev/null || { echo "server did not become ready:" >&2; cat "$log" >&2; exit 1; }

for path in /health /ready; do
  echo "== GET $path  (wrk -t2 -c$connections -d${duration}s)"
  wrk -t2 -c"$connections" -d"${duration}s" "http://127.0.0.1:$port$path" | grep -E "Requests/sec|Latency|Non-2xx|Socket errors" || true
done

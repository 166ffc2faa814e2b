#!/usr/bin/env bash
# The APNs client alone against the local simulator, then h2load against the same simulator
# with the same payload, and the ratio. Usage: bench/apns-client.sh [count] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-50000}
connections=${2:-1}
swift build -c release --product apns-client-bench >/dev/null
swift build -c release --product openpush >/dev/null
command -v h2load >/dev/null || { echo "h2load is missing (make bench installs it)" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
control=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
state=$(mktemp -d)
.build/release/openpush apns-sim --accept-any-token --port "$port" --control-port "$control" >"$state/sim.log" 2>&1 &
simulator=$!
trap 'kill -TERM $simulator 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$state"' EXIT
sleep 1
.build/release/apns-client-bench "http://127.0.0.1:$port" "$count" "$connections" | tee "$state/client.txt"
curl -s "http://127.0.0.1:$control/pushes?limit=1" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["pushes"][0]["payload"], separators=(",",":")))' >"$state/payload.json"
h2load -n "$count" -c "$connections" -m 100 -d "$state/payload.json" -H 'apns-push-type: alert' -H 'apns-topic: com.example.bench' \
  -H 'apns-priority: 10' -H 'apns-expiration: 0' -H 'apns-id: 0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60' "http://127.0.0.1:$port/3/device/$(printf 'ab%.0s' $(seq 1 32))" >"$state/h2load.txt" 2>&1
grep -E "finished in" "$state/h2load.txt" | sed 's/^/h2load: /'
ours=$(grep -o '[0-9]* req/s' "$state/client.txt" | cut -d' ' -f1)
theirs=$(grep -o 'finished in [^,]*, [0-9.]* req/s' "$state/h2load.txt" | grep -o '[0-9.]* req/s' | cut -d' ' -f1)
python3 -c "print('ratio: client %s req/s vs h2load %.0f req/s = %.2fx' % ('$ours', float('$theirs'), float('$ours') / float('$theirs')))"

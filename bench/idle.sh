#!/usr/bin/env bash
# Idle CPU: `openpush dev` (HTTP server, delivery engine with LOOPS loops, embedded PostgreSQL)
# pointed at the local APNs simulator, with nothing to deliver. After SETTLE seconds (default 10)
# it reads the CPU time (utime + stime, all threads) of the openpush process from /proc/<pid>/stat
# at both ends of a window of N seconds (default 30) and prints it as % of one core; the embedded
# PostgreSQL (postmaster and its children) is printed beside it. The bar: openpush under 1 %.
# Usage: [LOOPS=8] [SETTLE=10] bench/idle.sh [seconds]     (run `make bench`, which builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
source bench/lib.sh
bench_require python3
bench_start ${LOOPS:-8}
sleep "${SETTLE:-10}"

bench_python SECONDS_IDLE="$seconds" <<'PY'
import os, time
window, server = float(os.environ["SECONDS_IDLE"]), int(os.environ["SERVER_PID"])
tick = os.sysconf("SC_CLK_TCK")

def stat(pid):
    """(parent pid, CPU seconds) from /proc/<pid>/stat; fields after the `(comm)` that may hold spaces."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / tick

def postgres():
    """The postmaster (first line of its pid file) and its children, by pid."""
    postmaster = int(open(os.path.join(os.environ["BENCH_STATE"], ".openpush", "postgres", "data", "postmaster.pid")).readline())
    pids = [postmaster]
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and stat(entry)[0] == postmaster: pids.append(int(entry))
        except OSError: pass  # gone meanwhile
    return pids

def cpu(pids):
    """CPU seconds of each pid still alive."""
    alive = {}
    for pid in pids:
        try: alive[pid] = stat(pid)[1]
        except OSError: pass
    return alive

pids = postgres()
before, started = cpu([server] + pids), time.monotonic()
time.sleep(window)
after, elapsed = cpu([server] + pids), time.monotonic() - started
share = lambda group: sum(after[pid] - before[pid] for pid in group if pid in after) / elapsed * 100
print(f"== idle `openpush dev` ({os.environ.get('LOOPS', '8')} delivery loops, simulator, nothing to send) over {elapsed:.1f} s")
print(f"   openpush: {share([server]):.2f} % of one core; embedded PostgreSQL ({len(pids)} processes): {share(pids):.2f} %")
print(f"   requirement, openpush under 1 %: {'met' if share([server]) < 1 else 'NOT met'}")
PY

"""Shared by the benchmarks' Python parts (run through `bench_python` in lib.sh): the API of the
`openpush dev` that `bench_start` started, its demo app, and the simulator's control API.
Each function opens its own connection, so threads can call them side by side."""
import http.client, json, os, re, subprocess, time

state = os.environ["BENCH_STATE"]
demo = json.load(open(os.path.join(state, ".openpush", "demo_app.json")))


def call(method, path, body=None, headers=None):
    """One request to the API with a JSON body; returns (status, decoded answer or None)."""
    api = http.client.HTTPConnection("127.0.0.1", int(os.environ["API_PORT"]))
    api.request(method, path, None if body is None else json.dumps(body), {"Content-Type": "application/json", **(headers or {})})
    response = api.getresponse()
    answer = response.read()
    api.close()
    return response.status, json.loads(answer) if answer else None


def control(path):
    """GET on the simulator's control API (`/pushes?…`), decoded."""
    connection = http.client.HTTPConnection("127.0.0.1", int(os.environ["CONTROL_PORT"]))
    connection.request("GET", path)
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer


def notify_everyone():
    """One notification from the demo app to `Subscribed Users`; returns the API latency in seconds."""
    body = {"app_id": demo["id"], "contents": {"en": "Your order is on its way"}, "headings": {"en": "OpenPush"},
            "included_segments": ["Subscribed Users"]}
    started = time.monotonic()
    status, answer = call("POST", "/notifications", body, {"Authorization": f"Key {demo['rest_key']}"})
    assert status == 200, (status, answer)
    return time.monotonic() - started


def wait_accepted(total, started, others=lambda: 0, on_first=lambda: None, limit=1800):
    """Polls the simulator until `total` pushes (beyond `others()`, pushes of something else) were
    accepted; returns the seconds since `started` (monotonic) to the first and to the last.
    `on_first` runs once the first is seen."""
    first = None
    while True:
        count = control("/pushes?limit=0")["accepted_count"] - others()
        now = time.monotonic() - started
        if count > 0 and first is None:
            first = now
            on_first()
        if count >= total: return first, now
        if now > limit: raise SystemExit(f"only {count} of {total} accepted after {limit} s")
        time.sleep(0.05)


def save_payload(push):
    """The payload h2load sends (`bench_h2load_ratio`): the one openpush sent."""
    with open(os.path.join(state, "payload.json"), "w") as file:
        file.write(json.dumps(push["payload"], separators=(",", ":")))


def save_rate(pushes_per_second):
    with open(os.path.join(state, "rate"), "w") as file:
        file.write("%.0f" % pushes_per_second)


def rss_peak_mib():
    for line in open(f"/proc/{os.environ['SERVER_PID']}/status"):
        if line.startswith("VmHWM:"): return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid):
    """utime + stime of one process (every thread) so far, from /proc/<pid>/stat."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu_seconds():
    """CPU seconds of the whole PostgreSQL server of `openpush dev` so far: the postmaster, the
    backends it reaped (their time lands in its children's fields) and every backend alive now."""
    tick = os.sysconf("SC_CLK_TCK")
    def stat(pid):
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick
    postmaster = int(open(os.path.join(state, ".openpush", "postgres", "data", "postmaster.pid")).readline())
    _, own, reaped = stat(postmaster)
    seconds = own + reaped
    for entry in os.listdir("/proc"):
        if not entry.isdigit(): continue
        try:
            parent, own, _ = stat(entry)
            if parent == postmaster: seconds += own
        except OSError: pass  # exited meanwhile
    return seconds


def h2load(push_type, topic):
    """One h2load run against the simulator with the payload openpush sent (`save_payload`): 100,000
    requests over 2 connections of 100 streams each, the yardstick of every ratio. Prints its
    summary lines and returns its req/s."""
    device = "aa" + "0" * 61 + "1"
    run = subprocess.run(["h2load", "-n", "100000", "-c", "2", "-m", "100", "-d", os.path.join(state, "payload.json"),
                          "-H", f"apns-push-type: {push_type}", "-H", f"apns-topic: {topic}", "-H", "apns-priority: 10",
                          f"http://127.0.0.1:{os.environ['SIM_PORT']}/3/device/{device}"],
                         capture_output=True, text=True, check=True)
    for line in run.stdout.splitlines():
        if line.startswith(("finished in", "requests:")): print("   h2load: " + line)
    return float(re.search(r"finished in [^,]*, ([0-9.]+) req/s", run.stdout).group(1))


def h2load_ratio(ours, push_type, topic):
    """h2load three times, and the ratio of `ours` (pushes/s) to their median: one run lasts about
    a second, so a moment of another process's load moved a single run's figure by half."""
    print("== h2load against the same simulator, same payload (-c 2 -m 100), three runs")
    theirs = sorted(h2load(push_type, topic) for _ in range(3))[1]
    print("== ratio: openpush %.0f pushes/s vs h2load %.0f req/s (median of three) = %.2fx" % (ours, theirs, ours / theirs))


def wrk(path, seconds, connections=32, script=None, env=None):
    """One wrk run (-t2, `connections`, --latency) against the API; returns a dict of
    requests/s, p50/p99 in ms, the requests made and the non-2xx answers. `script`: a file under
    bench/wrk/, `env`: variables it reads."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script: command += ["-s", os.path.join(os.path.dirname(__file__), "wrk", script)]
    run = subprocess.run(command + [f"http://127.0.0.1:{os.environ['API_PORT']}{path}"], capture_output=True, text=True,
                         check=True, env={**os.environ, **(env or {})})
    out = run.stdout
    def latency(percent):
        found = re.search(rf"^\s+{percent}%\s+([0-9.]+)(us|ms|s)\s*$", out, re.M)
        value, unit = float(found.group(1)), found.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rate": float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1)),
            "requests": int(re.search(r"(\d+) requests in", out).group(1)),
            "p50": latency(50), "p99": latency(99), "non2xx": int(non2xx.group(1)) if non2xx else 0}


def database_figures(conninfo):
    """Commits and rolled-back transactions of the `openpush` database so far."""
    out = subprocess.run(["psql", conninfo, "-Atq", "-c",
                          "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"],
                         capture_output=True, text=True, check=True).stdout
    return int(out.strip())


def psql(conninfo, sql):
    """One statement through psql; its unaligned output."""
    return subprocess.run(["psql", conninfo, "-Atq", "-c", sql], capture_output=True, text=True, check=True).stdout.strip()


def reset_statements(conninfo):
    """With STATEMENTS=1 (`bench_track_statements`): forget the statements run so far, so the
    figures cover only what is measured next."""
    if os.environ.get("STATEMENTS"): psql(conninfo, "SELECT pg_stat_statements_reset()")

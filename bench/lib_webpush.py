"""The Web Push bench's Python parts (`bench/webpush.sh`): the Web Push simulator's control API,
and h2load posting one of the bodies openpush sent to the same simulator."""
import base64, http.client, json, os, re, subprocess, time

state = os.environ["WEBPUSH_STATE"]


def control(method, path, body=None):
    """A call to the simulator's control API; the decoded answer or None."""
    connection = http.client.HTTPConnection("127.0.0.1", int(os.environ["WEBPUSH_CONTROL_PORT"]))
    connection.request(method, path, None if body is None else json.dumps(body))
    answer = connection.getresponse().read()
    connection.close()
    return json.loads(answer) if answer else None


def accepted_count():
    """Pushes the simulator took since it started (h2load's included)."""
    return control("GET", "/counters")["accepted"]


def wait_accepted(total, started, baseline, limit=1800):
    """Polls the simulator until `total` pushes beyond `baseline` were taken; seconds since
    `started` to the first and the last."""
    first = None
    while True:
        count = accepted_count() - baseline
        now = time.monotonic() - started
        if count > 0 and first is None: first = now
        if count >= total: return first, now
        if now > limit: raise SystemExit(f"only {count} of {total} taken by the Web Push simulator after {limit} s")
        time.sleep(0.05)


def save_request():
    """One push as openpush sent it: its encrypted body to a file, and its headers."""
    push = control("GET", "/pushes?limit=1")["pushes"][0]
    body = push["body"] + "=" * (-len(push["body"]) % 4)
    with open(os.path.join(state, "webpush-body.bin"), "wb") as file:
        file.write(base64.urlsafe_b64decode(body))
    return {name: push["headers"][name] for name in ("content-encoding", "ttl", "urgency", "authorization") if name in push["headers"]}


def h2load(headers):
    """One h2load run over HTTP/1.1 posting the saved body with the same headers to the same
    simulator: 100,000 requests over 8 connections. Returns its req/s."""
    arguments = ["h2load", "--h1", "-n", "100000", "-c", "8", "-d", os.path.join(state, "webpush-body.bin")]
    for name, value in headers.items(): arguments += ["-H", f"{name}: {value}"]
    arguments.append(f"http://127.0.0.1:{os.environ['WEBPUSH_PORT']}/push/h2load")
    run = subprocess.run(arguments, capture_output=True, text=True, check=True)
    for line in run.stdout.splitlines():
        if line.startswith(("finished in", "requests:", "status codes:")): print("   h2load: " + line)
    succeeded = re.search(r"status codes: (\d+) 2xx", run.stdout)
    if not succeeded or int(succeeded.group(1)) == 0:
        raise SystemExit("h2load got no 2xx from the Web Push simulator:\n" + run.stdout)
    return float(re.search(r"finished in [^,]*, ([0-9.]+) req/s", run.stdout).group(1))

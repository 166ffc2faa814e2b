"""The FCM side of the benchmarks (bench/fcm.sh): a Google service account made for the run, an
access token from the FCM simulator's token endpoint, its control API, and h2load posting the
FCM v1 request openpush sent. Signing uses the openssl command, so nothing is installed."""
import base64, http.client, json, os, re, subprocess, time, urllib.parse, urllib.request

state = os.environ["FCM_STATE"]
key_file = os.path.join(state, "fcm-key.pem")
account_file = os.path.join(state, "fcm-service-account.json")
project = "openpush-bench"
client_email = f"firebase-adminsdk@{project}.iam.gserviceaccount.com"


def make_service_account():
    """An RSA key and the key file Google would hand out for it; returns the file's JSON text."""
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key_file],
                   check=True, capture_output=True)
    account = {"type": "service_account", "project_id": project, "private_key_id": "bench-key-1",
               "private_key": open(key_file).read(), "client_email": client_email}
    with open(account_file, "w") as file:
        json.dump(account, file)
    return json.dumps(account)


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def access_token():
    """An access token from the simulator's token endpoint, for an RS256 assertion signed as a
    client signs it: the bearer token h2load sends."""
    token_url = f"http://127.0.0.1:{os.environ['FCM_TOKEN_PORT']}/token"
    now = int(time.time())
    header = _b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "bench-key-1"}).encode())
    claims = _b64(json.dumps({"iss": client_email, "scope": "https://www.googleapis.com/auth/firebase.messaging",
                              "aud": token_url, "iat": now, "exp": now + 3600}).encode())
    signing_input = f"{header}.{claims}"
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key_file], input=signing_input.encode(),
                               capture_output=True, check=True).stdout
    form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                   "assertion": f"{signing_input}.{_b64(signature)}"}).encode()
    with urllib.request.urlopen(urllib.request.Request(token_url, data=form)) as answer:
        return json.loads(answer.read())["access_token"]


def control(method, path):
    """A call to the FCM simulator's control API; the decoded answer or None."""
    connection = http.client.HTTPConnection("127.0.0.1", int(os.environ["FCM_CONTROL_PORT"]))
    connection.request(method, path)
    answer = connection.getresponse().read()
    connection.close()
    return json.loads(answer) if answer else None


def accepted_count():
    """Messages the simulator accepted since it started (h2load's included)."""
    return control("GET", "/messages?limit=0")["accepted_count"]


def wait_accepted(total, started, baseline, limit=1800):
    """Polls the simulator until `total` messages beyond `baseline` were accepted; seconds since
    `started` to the first and the last."""
    first = None
    while True:
        count = accepted_count() - baseline
        now = time.monotonic() - started
        if count > 0 and first is None: first = now
        if count >= total: return first, now
        if now > limit: raise SystemExit(f"only {count} of {total} accepted by the FCM simulator after {limit} s")
        time.sleep(0.05)


def save_request():
    """The request body h2load posts: the message openpush sent last, as FCM received it."""
    message = control("GET", "/messages?limit=1")["messages"][0]["message"]
    with open(os.path.join(state, "fcm-request.json"), "w") as file:
        file.write(json.dumps({"message": message}, separators=(",", ":")))


def h2load(bearer):
    """One h2load run posting the saved FCM request to the simulator: 100,000 requests over 2
    connections of 100 streams each, as the APNs benches' yardstick. Returns its req/s."""
    run = subprocess.run(["h2load", "-n", "100000", "-c", "2", "-m", "100", "-d", os.path.join(state, "fcm-request.json"),
                          "-H", f"authorization: Bearer {bearer}", "-H", "content-type: application/json",
                          f"http://127.0.0.1:{os.environ['FCM_PORT']}/v1/projects/{project}/messages:send"],
                         capture_output=True, text=True, check=True)
    for line in run.stdout.splitlines():
        if line.startswith(("finished in", "requests:", "status codes:")): print("   h2load: " + line)
    succeeded = re.search(r"status codes: (\d+) 2xx", run.stdout)
    if not succeeded or int(succeeded.group(1)) == 0:
        raise SystemExit("h2load got no 2xx from the FCM simulator:\n" + run.stdout)
    return float(re.search(r"finished in [^,]*, ([0-9.]+) req/s", run.stdout).group(1))

"""What the Apple library checks share: calls to the sandbox store's controls, waiting for it, and a local
notification receiver."""

import http.server
import json
import sys
import threading
import time
import urllib.error
import urllib.request


def call(base, method, path, body=None, expect=(200, 201)):
    """`method path` at the sandbox store with a JSON body; its JSON answer, or the run fails."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    if status not in expect:
        sys.exit(f"FAIL: {method} {path} answered {status}: {text}")
    return json.loads(text) if text else {}


def wait_until_ready(base, deadline):
    """Waits for `GET /health/ready` to answer 200, until `deadline` (time.monotonic())."""
    while True:
        try:
            with urllib.request.urlopen(base + "/health/ready", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError):
            pass
        if time.monotonic() > deadline:
            sys.exit("FAIL: the sandbox store did not become ready")
        time.sleep(0.1)


class Inbox(http.server.BaseHTTPRequestHandler):
    """Receives App Store Server Notifications: each `signedPayload` is kept in `payloads`."""
    payloads = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with Inbox.lock:
            Inbox.payloads.append(json.loads(body)["signedPayload"])
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass

    @staticmethod
    def received():
        with Inbox.lock:
            return list(Inbox.payloads)


def start_inbox(base):
    """Starts a receiver on a free local port and makes it the sandbox's App Store notification URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Inbox)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    call(base, "PUT", "/sandbox/notifications", {"apple_url": f"http://127.0.0.1:{server.server_address[1]}/apple"})
    return server


def finish(passed, failures):
    """Prints each failure and the tally; exits non-zero when anything failed."""
    for failure in failures:
        print(f"[apple-library] FAIL {failure}", file=sys.stderr)
    print(f"{passed} passed, {len(failures)} failed")
    if failures:
        sys.exit(1)

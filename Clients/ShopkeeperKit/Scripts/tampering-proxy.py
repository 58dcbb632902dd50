#!/usr/bin/env python3
"""A proxy between ShopkeeperKit and the gateway that tampers with answers, as a local proxy on a jailbroken device
would: the signed-answers stack test (Tests/ShopkeeperKitStackTests/SignedAnswersStackTests.swift) points a kit at it.

    tampering-proxy.py <gateway URL> <port file>      writes its port to the file, then serves until its standard
                                                      input ends (the test that started it closed it or is gone)

`POST /__mode/<mode>` switches what it does to later requests:
  pass     forwards both ways unchanged
  grant    gives the customer an active `pro` entitlement in the answer's body
  strip    removes the answer's X-Shopkeeper-Signature
  nonce    sends the gateway another X-Shopkeeper-Nonce than the app's
  replay   answers with the first 200 it forwarded for the same path (signed for that older request)
Requests always go out without If-None-Match, so the gateway answers whole.
"""
import http.server
import os
import sys
import threading
import urllib.error
import urllib.request
import uuid

UPSTREAM = sys.argv[1].rstrip("/")
HOP = {"host", "connection", "content-length", "transfer-encoding", "if-none-match", "keep-alive"}
state = {"mode": "pass", "first": {}}
lock = threading.Lock()


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.forward()

    def do_POST(self):
        if self.path.startswith("/__mode/"):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            with lock:
                state["mode"] = self.path.rsplit("/", 1)[1]
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.forward()

    def forward(self):
        with lock:
            mode = state["mode"]
            first = state["first"].get(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length) if length else None
        if mode == "replay" and first:
            status, headers, body = first
        else:
            request = urllib.request.Request(UPSTREAM + self.path, data=data, method=self.command)
            for name, value in self.headers.items():
                if name.lower() in HOP:
                    continue
                if name.lower() == "x-shopkeeper-nonce" and mode == "nonce":
                    value = str(uuid.uuid4())
                request.add_header(name, value)
            try:
                answer = urllib.request.urlopen(request, timeout=30)
            except urllib.error.HTTPError as error:
                answer = error
            status, headers, body = answer.status, list(answer.headers.items()), answer.read()
            if status == 200:
                with lock:
                    state["first"].setdefault(self.path, (status, headers, body))
        if mode == "grant":
            body = body.replace(
                b'"entitlements":{}',
                b'"entitlements":{"pro":{"active":true,"product_id":"pro","source":"purchase"}}')
        if mode == "strip":
            headers = [(n, v) for n, v in headers if n.lower() != "x-shopkeeper-signature"]
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def exit_when_input_ends():
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=exit_when_input_ends, daemon=True).start()
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
with open(sys.argv[2] + ".tmp", "w") as port_file:
    port_file.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()

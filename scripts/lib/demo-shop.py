#!/usr/bin/env python3
"""The demo web shop's server, a development stand-in that scripts/run starts (Python's standard library only).

    SHOPKEEPER_GATEWAY_URL=... SHOPKEEPER_PUBLIC_KEY=pk_... \\
        python3 scripts/lib/demo-shop.py --port 3000 --root Clients/shopkeeper-web

Serves, from the web client's folder (--root), only what the shop page loads: `/demo/...` (the page), `/index.js` and
`/src/*.js` (the client it imports). `/` redirects to `/demo/`. `/demo/config.json` is the page's configuration, made
from the environment: the gateway's URL and the app's public key (both public: the page shows them to any visitor).
`/health/ready` answers 200 once it listens. No directory listings, no hidden files, nothing outside those paths, on
127.0.0.1 only. A real shop serves its pages from its own web server; this one exists so that `scripts/run` needs no
other runtime.
"""

import argparse
import json
import os
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Content types of the files served; others are not served. ES modules must be JavaScript (RFC 9239).
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
}


def make_handler(root: Path, config: bytes):
    """A request handler serving the shop's files below `root` and `config` as /demo/config.json."""

    class ShopHandler(BaseHTTPRequestHandler):
        server_version = "ShopkeeperDemoShop"

        def do_GET(self):  # noqa: N802 (the standard library's name)
            self.answer(with_body=True)

        def do_HEAD(self):  # noqa: N802
            self.answer(with_body=False)

        def answer(self, with_body):
            path = unquote(urlsplit(self.path).path)
            if path == "/":
                self.send_response(HTTPStatus.FOUND)
                self.send_header("Location", "/demo/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if path == "/health/ready":
                return self.send_body(b"ok\n", "text/plain; charset=utf-8", with_body)
            if path == "/demo/config.json":
                return self.send_body(config, "application/json", with_body)
            file = self.file_for(path)
            if file is None:
                return self.send_body(b"not found\n", "text/plain; charset=utf-8", with_body, HTTPStatus.NOT_FOUND)
            self.send_body(file.read_bytes(), CONTENT_TYPES[file.suffix], with_body)

        def file_for(self, path):
            """The file a request path names, or None: only /index.js, /src/... and /demo/... of known types."""
            if path.endswith("/"):
                path += "index.html"
            parts = path.lstrip("/").split("/")
            allowed = parts == ["index.js"] or (len(parts) > 1 and parts[0] in ("src", "demo"))
            if not allowed or any(part in ("", ".", "..") or part.startswith(".") or "\\" in part for part in parts):
                return None
            file = root.joinpath(*parts).resolve()
            if root not in file.parents or file.suffix not in CONTENT_TYPES or not file.is_file():
                return None
            return file

        def send_body(self, body, content_type, with_body, status=HTTPStatus.OK):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            # The files change while someone edits them; the browser asks again each time.
            self.send_header("Cache-Control", "no-cache")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def log_message(self, format, *args):  # noqa: A002 (the standard library's signature)
            sys.stderr.write("demo-shop: %s\n" % (format % args))

    return ShopHandler


def main():
    parser = argparse.ArgumentParser(description="The demo web shop's development server.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--root", required=True, help="the web client's folder (it holds index.js, src/ and demo/)")
    arguments = parser.parse_args()
    root = Path(arguments.root).resolve()
    if not (root / "index.js").is_file() or not (root / "demo" / "index.html").is_file():
        sys.exit(f"demo-shop: {arguments.root} has no index.js and demo/index.html")
    gateway = os.environ.get("SHOPKEEPER_GATEWAY_URL", "")
    public_key = os.environ.get("SHOPKEEPER_PUBLIC_KEY", "")
    if not gateway.startswith(("http://", "https://")) or not public_key.startswith("pk_"):
        sys.exit("demo-shop: set SHOPKEEPER_GATEWAY_URL (http(s)://...) and SHOPKEEPER_PUBLIC_KEY (pk_...)")
    config = json.dumps({"gateway_url": gateway.rstrip("/"), "public_key": public_key}).encode()
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), make_handler(root, config))
    sys.stderr.write(f"demo-shop: serving {root} on http://127.0.0.1:{arguments.port}/demo/\n")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

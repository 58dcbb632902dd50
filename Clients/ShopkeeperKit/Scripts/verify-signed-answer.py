#!/usr/bin/env python3
"""Checks the gateway's signed answers with a verifier written apart from both the gateway's signer and ShopkeeperKit's
check: Python's `cryptography`, from the format in docs/openapi.yaml ("Signed answers").

    verify-signed-answer.py <local.env of a running stack>

Makes sure the stack's demo app has an answer signing key (creating one with the secret key if needed), reads a
customer through the gateway with a nonce, once whole and once Not Modified, and verifies both signatures with the
app's published public key; a copy of the answer with one byte changed must not verify.
"""
import base64
import hashlib
import json
import sys
import time
import urllib.error
import urllib.request
import uuid

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

env = dict(line.split("=", 1) for line in open(sys.argv[1]).read().splitlines() if "=" in line)
gateway, secret, public = env["SHOPKEEPER_GATEWAY_URL"], env["SHOPKEEPER_SECRET_KEY"], env["SHOPKEEPER_PUBLIC_KEY"]


def call(method, path, key, headers=None):
    request = urllib.request.Request(gateway + path, method=method, headers={"Authorization": f"Bearer {key}"})
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        answer = urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as error:
        answer = error
    return answer.status, answer.headers, answer.read()


status, _, body = call("GET", "/v1/admin/answer-signing", secret)
assert status == 200, (status, body)
keys = json.loads(body)["keys"]
if not any(key["active"] for key in keys):
    status, _, body = call("POST", "/v1/admin/answer-signing/keys", secret)
    assert status == 201, (status, body)
    keys = [json.loads(body)]
trusted = {key["key_id"]: Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"])) for key in keys}


def verify(status, headers, body, target, nonce):
    fields = headers["X-Shopkeeper-Signature"].split(";")
    assert fields[0] == "v1", fields
    parts = dict(field.split("=", 1) for field in fields[1:])
    assert abs(int(parts["t"]) - time.time()) < 300, parts["t"]
    message = "\n".join([
        "shopkeeper-answer-v1", str(status), target, nonce, parts["t"], headers.get("ETag") or "",
        hashlib.sha256(body).hexdigest(),
    ]).encode()
    trusted[parts["key"]].verify(base64.b64decode(parts["sig"]), message)
    return message


target = f"/v1/customers/python-{uuid.uuid4()}"
nonce = str(uuid.uuid4())
status, headers, body = call("GET", target, public, {"X-Shopkeeper-Nonce": nonce})
assert status == 200, (status, body)
verify(status, headers, body, target, nonce)
try:
    verify(status, headers, body[:-1] + b" ", target, nonce)
    sys.exit("an altered body verified")
except InvalidSignature:
    pass
nonce = str(uuid.uuid4())
status, headers, body = call("GET", target, public, {"X-Shopkeeper-Nonce": nonce, "If-None-Match": headers["ETag"]})
assert status == 304, status
verify(status, headers, body, target, nonce)
print("[kit] the gateway's answer signatures verify with Python's cryptography (200 and 304)")

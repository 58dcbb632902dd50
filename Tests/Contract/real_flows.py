"""Real purchases through the running system, every answer held to docs/openapi.yaml.

Schemathesis cannot make a proof of purchase that verifies, so it never sees the 200 answers of purchases,
restores or customers who own something. This walks those paths with proofs bought at the sandbox store (the
`shopkeeper sandbox buy` command, as the README's first purchase does) and validates each answer with schemathesis's
own response validation. Run by Tests/Contract/run before the fuzzing (which may delete the demo's products).

Usage: real_flows.py DOCUMENT SHOPKEEPER_CLI   (keys and URLs from the environment scripts/run writes)
"""

import json
import os
import subprocess
import sys
import uuid

import requests
import schemathesis

document, cli = sys.argv[1], sys.argv[2]
schema = schemathesis.openapi.from_path(document)
gateway = os.environ["SHOPKEEPER_GATEWAY_URL"]
public_key = os.environ["SHOPKEEPER_PUBLIC_KEY"]
secret_key = os.environ["SHOPKEEPER_SECRET_KEY"]
bundle_id = os.environ["SHOPKEEPER_DEMO_BUNDLE_ID"]
failures = []
checked = 0


def call(method, template, path, key, expect, body=None, headers=None):
    """Sends one request and holds its answer to the document's operation for `template`."""
    global checked
    sent = {"Authorization": f"Bearer {key}", **(headers or {})}
    response = requests.request(method, gateway + path, json=body, headers=sent, timeout=30)
    label = f"{method} {path} -> {response.status_code}"
    if response.status_code != expect:
        failures.append(f"{label}: expected {expect}: {response.text[:300]}")
        return None
    try:
        schema[template][method].validate_response(response)
        checked += 1
    except Exception as error:  # schemathesis raises one error with every violation in its text
        failures.append(f"{label}: does not fit the document: {error}")
    return response.json() if response.content else None


def buy(product, user, **options):
    """The proof an app would send for `product`, bought at the sandbox store."""
    arguments = [cli, "sandbox", "buy", "--product", product, "--user", user]
    for name, value in options.items():
        arguments += [f"--{name}", value]
    return json.loads(subprocess.run(arguments, check=True, capture_output=True, text=True).stdout)


user = f"contract-{uuid.uuid4().hex[:8]}"
device = "contract-device"
call("GET", "/v1/catalog", "/v1/catalog?platform=app_store&app_version=2.0", public_key, 200)

proofs = [
    buy(f"{bundle_id}.extra_garden", user, type="Non-Consumable"),
    buy(f"{bundle_id}.fertilizer_10", user, type="Consumable"),
    buy(f"{bundle_id}.service_year", user, type="Non-Renewing Subscription"),
    buy(f"{bundle_id}.pro_monthly", user, type="Auto-Renewable Subscription"),
]
signed = [proof["signed_transaction"] for proof in proofs]
for transaction in signed:
    call(
        "POST", "/v1/purchases", "/v1/purchases", public_key, 200,
        {"app_user_id": user, "device_id": device, "app_version": "2.0", "signed_transaction": transaction},
    )
google = buy("extra_garden", user, store="google", type="product", **{"bundle-id": bundle_id})
call(
    "POST", "/v1/purchases", "/v1/purchases", public_key, 200,
    {"app_user_id": user, "device_id": device, "purchase_token": google["purchase_token"], "product_id": "extra_garden"},
)

customer = f"/v1/customers/{user}"
call("GET", "/v1/customers/{app_user_id}", customer, public_key, 200)
call(
    "POST", "/v1/customers/{app_user_id}/consumables/{product_id}/consume",
    f"{customer}/consumables/fertilizer_10/consume", public_key, 200, {"quantity": 3},
    {"Idempotency-Key": uuid.uuid4().hex},
)
call(
    "POST", "/v1/customers/{app_user_id}/restore", f"{customer}/restore", public_key, 200,
    {"device_id": device, "signed_transactions": signed},
)
call(
    "POST", "/v1/customers/{app_user_id}/restore", f"{customer}/restore", public_key, 200,
    {"device_id": device, "purchase_tokens": [{"purchase_token": google["purchase_token"], "product_id": "extra_garden"}]},
)
# An identified customer's ids are linked by the developer's server (secret key); the public key links only as a
# log-in does, from an install's anonymous id to an id that owns nothing.
call("POST", "/v1/customers/{app_user_id}/aliases", f"{customer}/aliases", secret_key, 200, {"alias": f"{user}-login"})
install = f"/v1/customers/anon_{uuid.uuid4()}"
call("POST", "/v1/customers/{app_user_id}/aliases", f"{install}/aliases", public_key, 200, {"alias": f"{user}-new"})
call("GET", "/v1/customers/{app_user_id}/history", f"{customer}/history", secret_key, 200)
call("GET", "/v1/customers/{app_user_id}/trial", f"{customer}/trial", public_key, 200)
call("POST", "/v1/receipts/validate", "/v1/receipts/validate", public_key, 200, {"signed_transaction": signed[0]})
events = call("GET", "/v1/admin/events", f"/v1/admin/events?app_user_id={user}", secret_key, 200)
if events and events.get("events"):
    event = events["events"][0]["id"]
    call("GET", "/v1/admin/events/{event_id}", f"/v1/admin/events/{event}", secret_key, 200)

print(f"[contract] real flows: {checked} answers checked against the document")
if failures:
    print("[contract] real flows: answers that break the document or the flow:", file=sys.stderr)
    for failure in failures:
        print("  - " + failure, file=sys.stderr)
    sys.exit(1)

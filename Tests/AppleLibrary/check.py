"""Verifies every kind of App Store JWS the sandbox store signs with Apple's App Store Server Library (strict mode).

    check.py http://127.0.0.1:PORT        (run by Tests/AppleLibrary/run, which starts the sandbox store)

Makes a purchase of each product type (and a production one), a subscription with an offer, its upgrade, a refund
and a revocation, renewal-state changes, an app transaction per environment, and a notification of every
App Store Server Notification V2 type (RESCIND_CONSENT and EXTERNAL_PURCHASE_TOKEN included); receives the
notifications on a local port, and verifies each signed transaction, renewal info, app transaction and notification
with `SignedDataVerifier(root_certificates=[the sandbox's root], enable_online_checks=False, ...)`. A new verifier per
JWS, so the chain of each is checked (the library caches a verified chain). Exits non-zero on any rejection.
"""

import base64
import json
import ssl
import sys
import time
import urllib.request
import uuid

import sandbox_support

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

BASE = sys.argv[1].rstrip("/")
BUNDLE = "com.example.applelibrary"
APP_APPLE_ID = 1234567890
DEADLINE = time.monotonic() + 45


def call(method, path, body=None, expect=(200, 201)):
    return sandbox_support.call(BASE, method, path, body, expect)


def verifier(environment):
    return SignedDataVerifier(
        root_certificates=[ROOT_DER], enable_online_checks=False, environment=environment, bundle_id=BUNDLE,
        app_apple_id=APP_APPLE_ID)


verified = {}
failures = []


def check(kind, function, token, environment=Environment.SANDBOX):
    try:
        decoded = getattr(verifier(environment), function)(token)
    except VerificationException as error:
        failures.append(f"{kind}: {error.status}")
        return None
    verified[kind] = verified.get(kind, 0) + 1
    return decoded


sandbox_support.wait_until_ready(BASE, DEADLINE)
with urllib.request.urlopen(BASE + "/sandbox/root.pem", timeout=10) as response:
    ROOT_DER = ssl.PEM_cert_to_DER_cert(response.read().decode())

sandbox_support.start_inbox(BASE)

customer = str(uuid.uuid4())
purchases = []


def buy(**fields):
    body = {"bundle_id": BUNDLE, "app_account_token": customer}
    body.update(fields)
    answer = call("POST", "/sandbox/apple/transactions", body)
    purchases.append((fields["type"], fields.get("environment", "Sandbox"), answer["signed_transaction"]))
    return answer


consumable = buy(product_id="seeds", type="Consumable", quantity=2)
lifetime = buy(product_id="pro", type="Non-Consumable")
buy(product_id="season", type="Non-Renewing Subscription")
monthly = buy(
    product_id="monthly", type="Auto-Renewable Subscription", period="P1M", offer_type=1,
    offer_discount_type="FREE_TRIAL", offer_period="P1W")
buy(product_id="yearly", type="Auto-Renewable Subscription", period="P1Y",
    original_transaction_id=monthly["transaction_id"])
buy(product_id="seeds", type="Consumable", environment="Production", app_apple_id=APP_APPLE_ID)
call("POST", f"/sandbox/apple/transactions/{consumable['transaction_id']}/refund")
call("POST", f"/sandbox/apple/transactions/{lifetime['transaction_id']}/revoke")
call("POST", f"/sandbox/apple/subscriptions/{monthly['transaction_id']}/renewal", {"auto_renew": False})
call("POST", f"/sandbox/apple/subscriptions/{monthly['transaction_id']}/renewal", {"billing_retry": True})

# Every notification type: the transaction-carrying ones about the subscription, TEST and the summary about the
# app, and the two that carry no transaction through their own controls.
for kind in NotificationTypeV2:
    name = kind.value
    if name == "TEST":
        call("POST", "/sandbox/notifications/apple", {"type": name, "bundle_id": BUNDLE})
    elif name == "RENEWAL_EXTENSION":
        call("POST", "/sandbox/notifications/apple",
             {"type": name, "subtype": "SUMMARY", "bundle_id": BUNDLE, "product_id": "monthly"})
    elif name == "RESCIND_CONSENT":
        call("POST", "/sandbox/notifications/apple/rescind-consent",
             {"bundle_id": BUNDLE, "app_account_token": customer})
    elif name == "EXTERNAL_PURCHASE_TOKEN":
        call("POST", "/sandbox/notifications/apple/external-purchase-token", {"bundle_id": BUNDLE})
    else:
        body = {"type": name, "transaction_id": monthly["transaction_id"]}
        if name == "CONSUMPTION_REQUEST":
            body = {"type": name, "transaction_id": consumable["transaction_id"],
                    "consumption_request_reason": "UNINTENDED_PURCHASE"}
        call("POST", "/sandbox/notifications/apple", body)

app_transactions = [
    (Environment.SANDBOX, call("POST", "/sandbox/apple/app-transactions",
                               {"bundle_id": BUNDLE, "app_account_token": customer,
                                "original_application_version": "1.2"})),
    (Environment.PRODUCTION, call("POST", "/sandbox/apple/app-transactions",
                                  {"bundle_id": BUNDLE, "app_account_token": customer, "environment": "Production",
                                   "app_apple_id": APP_APPLE_ID})),
]

sent = len(call("GET", "/sandbox/notifications?store=apple")["deliveries"])
while True:
    received = sandbox_support.Inbox.received()
    if len(received) >= sent:
        break
    if time.monotonic() > DEADLINE:
        sys.exit(f"FAIL: {len(received)} of {sent} notifications arrived")
    time.sleep(0.05)

# ---------------------------------------------------------------------------------------------------------------
# Verification.

app_transaction_ids = set()
for product_type, environment, token in purchases:
    decoded = check(f"transaction ({product_type}, {environment})", "verify_and_decode_signed_transaction", token,
                    Environment(environment))
    if decoded is not None and environment == "Sandbox":
        app_transaction_ids.add(decoded.appTransactionId)



def claimed_environment(token):
    """The environment a notification says it is from (unverified: it only picks the verifier to use)."""
    segment = token.split(".")[1]
    payload = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    part = payload.get("data") or payload.get("appData") or payload.get("summary") or {}
    return Environment(part.get("environment", "Sandbox"))


types = set()
for signed in received:
    environment = claimed_environment(signed)
    notification = check(f"notification ({environment.value})", "verify_and_decode_notification", signed, environment)
    if notification is None:
        continue
    types.add(notification.rawNotificationType)
    if notification.data is not None:
        if notification.data.signedTransactionInfo:
            check("transaction (in a notification)", "verify_and_decode_signed_transaction",
                  notification.data.signedTransactionInfo, environment)
        if notification.data.signedRenewalInfo:
            renewal = check("renewal info", "verify_and_decode_renewal_info", notification.data.signedRenewalInfo,
                            environment)
            if renewal is not None:
                app_transaction_ids.add(renewal.appTransactionId)
    if notification.appData is not None:
        app = check("app transaction (in RESCIND_CONSENT)", "verify_and_decode_app_transaction",
                    notification.appData.signedAppTransactionInfo)
        if app is not None:
            app_transaction_ids.add(app.appTransactionId)
    if notification.externalPurchaseToken is not None:
        if not notification.externalPurchaseToken.externalPurchaseId.startswith("SANDBOX"):
            failures.append("EXTERNAL_PURCHASE_TOKEN: a sandbox token's id does not start with SANDBOX")

for environment, answer in app_transactions:
    app = check(f"app transaction ({environment.value})", "verify_and_decode_app_transaction",
                answer["signed_app_transaction"], environment)
    if app is not None and environment == Environment.SANDBOX:
        app_transaction_ids.add(app.appTransactionId)

missing = sorted({kind.value for kind in NotificationTypeV2} - types)
if missing:
    failures.append(f"notification types never verified: {missing}")
if None in app_transaction_ids or len(app_transaction_ids) != 1:
    failures.append(f"the customer's JWS carry appTransactionIds {sorted(map(str, app_transaction_ids))}, not one")
for kind in ("renewal info", "app transaction (Sandbox)", "app transaction (Production)"):
    if kind not in verified:
        failures.append(f"no {kind} verified")

for kind in sorted(verified):
    print(f"[apple-library] verified {verified[kind]:3d} x {kind}")
print(f"[apple-library] notification types: {len(types)} of {len(NotificationTypeV2)}")
sandbox_support.finish(sum(verified.values()), failures)

"""Holds the sandbox store's Stripe to Stripe's own Python library (the official `stripe` package, pinned).

    check.py http://127.0.0.1:PORT HOOK_PORT     (run by Tests/StripeLibrary/run, which starts the sandbox store)

With `stripe.api_base` at the sandbox's `/stripe`, calls every endpoint the server uses through the library: the
answers parse into the library's objects with the fields the server reads, refusals raise the library's error
classes (`AuthenticationError`, `InvalidRequestError` with Stripe's code and param, `IdempotencyError`), and a retry
with the same `Idempotency-Key` replays the first answer. Pays sessions through the control and the hosted page,
renews, fails and recovers a subscription on the `advance` control, refunds and disputes. Receives the webhooks on a
listener of its own and verifies each with `stripe.Webhook.construct_event` under each signing secret; a tampered
body and a stale timestamp raise `SignatureVerificationError`. Exits non-zero on the first failure.
"""

import http.client
import http.server
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from unittest import mock

import stripe
from stripe._object_classes import get_object_class

BASE = sys.argv[1].rstrip("/")
HOOK_PORT = int(sys.argv[2])
SECRETS = ["whsec_stripe_library_old", "whsec_stripe_library_new"]
DEADLINE = time.monotonic() + 60

stripe.api_key = "sk_test_shopkeeper_sandbox"
stripe.api_base = BASE + "/stripe"
stripe.max_network_retries = 0

received = []
received_lock = threading.Condition()


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with received_lock:
            received.append((body, self.headers.get("Stripe-Signature"), self.headers.get("Content-Type")))
            received_lock.notify_all()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def check(condition, message):
    if not condition:
        sys.exit(f"FAIL: {message}")


def control(method, path, body=None, expect=(200, 201)):
    """A call of the sandbox's JSON controls; the answer's object."""
    host, port = BASE.split("://", 1)[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    payload = None if body is None else json.dumps(body)
    connection.request(method, path, body=payload, headers={"Content-Type": "application/json"} if payload else {})
    answer = connection.getresponse()
    text = answer.read().decode()
    connection.close()
    check(answer.status in expect, f"{method} {path} answered {answer.status}: {text}")
    return json.loads(text) if text else {}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def raises(error_class, call, **expected):
    try:
        call()
    except error_class as error:
        for name, value in expected.items():
            check(getattr(error, name) == value, f"{error_class.__name__}.{name} is {getattr(error, name)!r}, not {value!r}")
        return error
    except stripe.StripeError as error:
        sys.exit(f"FAIL: expected {error_class.__name__}, got {type(error).__name__}: {error}")
    sys.exit(f"FAIL: expected {error_class.__name__}, nothing raised")


def wait_until_ready():
    """Until the store answers Stripe's API (refused connections are the library's `APIConnectionError`)."""
    while True:
        try:
            stripe.Price.list(limit=1)
            return
        except stripe.APIConnectionError:
            check(time.monotonic() < DEADLINE, "the sandbox store did not become ready")
            time.sleep(0.1)


def pay(session, card="4242424242424242", expect=(200,)):
    return control("POST", f"/sandbox/stripe/checkout/{session.id}/pay", {"card": card}, expect=expect)


def field_names(cls):
    """The fields a library class declares (its annotations, and its bases')."""
    names = set()
    for klass in cls.__mro__:
        names |= set(getattr(klass, "__annotations__", {}))
    return names


def check_fields(value, cls, path):
    """Every field the sandbox sent is one the library's class for it declares, recursively (nested classes,
    expanded objects and list items included): the sandbox invents no field names."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            check_fields(item, cls, f"{path}[{index}]")
        return
    if not isinstance(value, dict):
        return
    if value.get("object") == "list":
        for index, item in enumerate(value.get("data", [])):
            check_fields(item, None, f"{path}.data[{index}]")
        return
    if isinstance(value.get("object"), str):
        cls = get_object_class("V1", value["object"])
        check(cls is not stripe.StripeObject, f"{path}: unknown object {value['object']}")
    if cls is None:
        return
    known = field_names(cls)
    inner = getattr(cls, "_inner_class_types", {})
    for key, item in value.items():
        check(key in known, f"{path}.{key} is not a field of {cls.__name__}")
        if key in inner:
            check_fields(item, inner[key], f"{path}.{key}")
        elif isinstance(item, (dict, list)) and key not in ("metadata", "previous_attributes"):
            check_fields(item, None, f"{path}.{key}")


checked = []


def fields(obj):
    """Queues a library object's fields for `check_fields`; answers the object."""
    checked.append(obj)
    return obj


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", HOOK_PORT), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    wait_until_ready()
    run = uuid.uuid4().hex[:8]

    # Prices, as the catalog maps products to them.
    control("PUT", "/sandbox/stripe/prices", {"prices": [
        {"id": "price_lib_gems", "product_name": "Gems", "unit_amount": 499, "currency": "usd",
         "lookup_key": "lib_gems"},
        {"id": "price_lib_monthly", "product_name": "Monthly", "unit_amount": 999, "currency": "eur",
         "recurring": {"interval": "month"}, "lookup_key": "lib_monthly"},
        {"id": "price_lib_yearly", "product": "prod_lib_monthly", "product_name": "Monthly", "unit_amount": 9999,
         "currency": "eur", "recurring": {"interval": "year"}},
        {"id": "price_lib_trial", "product_name": "Trial", "unit_amount": 500, "currency": "usd",
         "recurring": {"interval": "week", "interval_count": 2}, "trial_period_days": 7},
    ]})
    gems = fields(stripe.Price.retrieve("price_lib_gems"))
    check(isinstance(gems, stripe.Price) and gems.type == "one_time" and gems.unit_amount == 499, "one-time price")
    monthly = fields(stripe.Price.retrieve("price_lib_monthly", expand=["product"]))
    check(monthly.recurring.interval == "month" and monthly.recurring.interval_count == 1, "recurring price")
    check(isinstance(monthly.product, stripe.Product) and monthly.product.name == "Monthly", "expanded product")
    found = stripe.Price.list(lookup_keys=["lib_gems", "lib_monthly"], active=True)
    check(sorted(p.id for p in found.data) == ["price_lib_gems", "price_lib_monthly"], f"lookup keys: {found}")
    check(stripe.Product.retrieve(gems.product).object == "product", "product")

    # Authentication and errors.
    raises(stripe.AuthenticationError, lambda: stripe.Customer.retrieve("cus_x", api_key="sk_test_wrong"))
    raises(stripe.InvalidRequestError, lambda: stripe.Customer.retrieve("cus_missing"),
           code="resource_missing", param="id", http_status=404)
    raises(stripe.InvalidRequestError, lambda: stripe.checkout.Session.create(
        line_items=[{"price": "price_lib_gems", "quantity": 1}]), code="parameter_missing", param="mode")
    raises(stripe.InvalidRequestError, lambda: stripe.checkout.Session.create(
        mode="payment", line_items=[{"price": "price_nope", "quantity": 1}], success_url="http://x/ok"),
        code="resource_missing", param="line_items[0][price]")
    raises(stripe.InvalidRequestError, lambda: stripe.Customer.create(email="a@example.com", colour="blue"),
           code="parameter_unknown")
    control("POST", "/sandbox/faults", {"endpoint": "stripe.read", "count": 1, "status": 503})
    raises(stripe.APIError, lambda: stripe.Price.retrieve("price_lib_gems"), http_status=503)
    expiring = stripe.checkout.Session.create(
        mode="payment", line_items=[{"price": "price_lib_gems"}], success_url="http://shop.example/ok")
    check(stripe.checkout.Session.expire(expiring.id).status == "expired", "an expired session")
    raises(stripe.InvalidRequestError, lambda: stripe.checkout.Session.expire(expiring.id))

    # Idempotency: the same key and parameters replay the first answer; other parameters are refused.
    key = f"customer-{run}"
    first = stripe.Customer.create(email="ada@example.com", metadata={"app_user_id": "ada"}, idempotency_key=key)
    again = stripe.Customer.create(email="ada@example.com", metadata={"app_user_id": "ada"}, idempotency_key=key)
    check(first.id == again.id and first.id.startswith("cus_"), "an idempotent retry replays the customer")
    raises(stripe.IdempotencyError, lambda: stripe.Customer.create(email="eve@example.com", idempotency_key=key))
    customer = fields(stripe.Customer.retrieve(first.id))
    check(customer.metadata["app_user_id"] == "ada", "customer metadata")

    # A one-time purchase: declined, then paid.
    session = stripe.checkout.Session.create(
        mode="payment", line_items=[{"price": "price_lib_gems", "quantity": 2}],
        success_url="http://shop.example/ok?session_id={CHECKOUT_SESSION_ID}", cancel_url="http://shop.example/no",
        client_reference_id="ada", customer=customer.id, metadata={"app_user_id": "ada", "app_id": "garden"},
        payment_intent_data={"metadata": {"app_user_id": "ada"}}, idempotency_key=f"session-{run}")
    check(session.status == "open" and session.url.startswith(BASE + "/stripe/pay/cs_test_"), f"session: {session}")
    declined = pay(session, "4000000000000002", expect=(402,))
    check(declined["code"] == "generic_decline", f"decline: {declined}")
    pay(session, "4000000000009995", expect=(402,))
    check(stripe.checkout.Session.retrieve(session.id).status == "open", "a declined session stays open")
    pay(session)
    paid = fields(stripe.checkout.Session.retrieve(session.id, expand=["line_items"]))
    check(paid.status == "complete" and paid.payment_status == "paid" and paid.amount_total == 998, "paid session")
    check(paid.line_items.data[0].price.id == "price_lib_gems" and paid.line_items.data[0].quantity == 2, "items")
    check(stripe.checkout.Session.list_line_items(session.id).data[0].amount_total == 998, "line_items list")
    intent = fields(stripe.PaymentIntent.retrieve(paid.payment_intent))
    check(intent.status == "succeeded" and intent.metadata["app_user_id"] == "ada", f"payment intent: {intent}")
    charge = fields(stripe.Charge.retrieve(intent.latest_charge))
    check(charge.paid and charge.amount == 998 and charge.payment_intent == intent.id, "charge")

    # The hosted page: a card number form, paid with a redirect to the success URL.
    other = stripe.checkout.Session.create(
        mode="payment", line_items=[{"price": "price_lib_gems"}], customer_email="bob@example.com",
        success_url="http://shop.example/ok?session_id={CHECKOUT_SESSION_ID}")
    with urllib.request.urlopen(other.url, timeout=10) as page:
        check('name="card"' in page.read().decode(), "the hosted page has a card field")
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(urllib.request.Request(other.url, data=b"card=4242+4242+4242+4242", method="POST"), timeout=10)
        sys.exit("FAIL: the hosted page did not redirect")
    except urllib.error.HTTPError as redirect:
        check(redirect.code == 303, f"redirect status {redirect.code}")
        check(redirect.headers["Location"] == f"http://shop.example/ok?session_id={other.id}", "success_url")
    check(stripe.checkout.Session.retrieve(other.id).customer is not None, "a customer made at checkout")

    # A subscription: its invoice, the invoice's payment, renewal, failure and recovery.
    sub_session = stripe.checkout.Session.create(
        mode="subscription", line_items=[{"price": "price_lib_monthly", "quantity": 1}], customer=customer.id,
        success_url="http://shop.example/ok", subscription_data={"metadata": {"app_user_id": "ada"}})
    pay(sub_session, "4000000000000341")
    sub_session = stripe.checkout.Session.retrieve(sub_session.id)
    subscription = fields(stripe.Subscription.retrieve(sub_session.subscription, expand=["latest_invoice"]))
    check(subscription.status == "active" and subscription.metadata["app_user_id"] == "ada", "subscription")
    item = subscription["items"].data[0]
    check(item.current_period_end > item.current_period_start and item.price.id == "price_lib_monthly", "item")
    invoice = subscription.latest_invoice
    check(isinstance(invoice, stripe.Invoice) and invoice.status == "paid", "expanded invoice")
    check(invoice.parent.subscription_details.subscription == subscription.id, "invoice parent")
    check(invoice.lines.data[0].period.end == item.current_period_end, "invoice line period")
    payments = fields(stripe.InvoicePayment.list(invoice=invoice.id))
    with_payments = fields(stripe.Invoice.retrieve(invoice.id, expand=["payments"]))
    check(with_payments.payments.data[0].invoice == invoice.id, "an invoice's payments, expanded")
    listed_subscriptions = fields(stripe.Subscription.list(customer=customer.id))
    check([s.id for s in listed_subscriptions.data] == [subscription.id], "a customer's subscriptions")
    check(len(payments.data) == 1 and payments.data[0].payment.type == "payment_intent", "invoice payments")
    first_intent = payments.data[0].payment.payment_intent
    by_intent = stripe.InvoicePayment.list(payment={"type": "payment_intent", "payment_intent": first_intent})
    check(by_intent.data[0].invoice == invoice.id, "invoice payment by payment intent")
    renewed = control("POST", f"/sandbox/stripe/subscriptions/{subscription.id}/advance")
    check(renewed["status"] == "past_due", f"4000000000000341 fails the renewal: {renewed['status']}")
    failed = fields(stripe.Invoice.retrieve(renewed["latest_invoice"]))
    check(failed.status == "open" and failed.attempt_count == 1 and failed.next_payment_attempt, "failed invoice")
    control("POST", f"/sandbox/stripe/customers/{customer.id}/card", {"card": "4242424242424242"})
    recovered = control("POST", f"/sandbox/stripe/subscriptions/{subscription.id}/advance")
    check(recovered["status"] == "active" and stripe.Invoice.retrieve(failed.id).status == "paid", "retry paid")
    changed = stripe.Subscription.modify(
        subscription.id, items=[{"id": item.id, "price": "price_lib_yearly"}], metadata={"note": "yearly"})
    check(changed["items"].data[0].price.id == "price_lib_yearly" and changed.metadata["note"] == "yearly", "change")
    ending = stripe.Subscription.modify(subscription.id, cancel_at_period_end=True)
    check(ending.cancel_at_period_end and ending.status == "active", "cancel at period end")
    ended = control("POST", f"/sandbox/stripe/subscriptions/{subscription.id}/advance")
    check(ended["status"] == "canceled", "ended at the period's end")

    trial_session = stripe.checkout.Session.create(
        mode="subscription", line_items=[{"price": "price_lib_trial"}], customer=customer.id,
        success_url="http://shop.example/ok")
    pay(trial_session)
    trial_session = stripe.checkout.Session.retrieve(trial_session.id)
    check(trial_session.payment_status == "no_payment_required", "a trial needs no payment")
    trial = fields(stripe.Subscription.retrieve(trial_session.subscription))
    check(trial.status == "trialing" and trial.trial_end, "trialing")
    canceled = stripe.Subscription.cancel(trial.id)
    check(canceled.status == "canceled" and canceled.ended_at, "cancelled now")
    raises(stripe.InvalidRequestError, lambda: stripe.Subscription.cancel(trial.id))

    # Refunds, in part then the rest; a dispute.
    part = stripe.Refund.create(charge=charge.id, amount=300)
    rest = stripe.Refund.create(payment_intent=intent.id)
    check(part.amount == 300 and rest.amount == 698 and rest.status == "succeeded", "refunds")
    check(fields(stripe.Refund.retrieve(part.id)).charge == charge.id, "refund retrieve")
    check(stripe.Charge.retrieve(charge.id).refunded, "refunded charge")
    raises(stripe.InvalidRequestError, lambda: stripe.Refund.create(charge=charge.id),
           code="charge_already_refunded")
    other_intent = stripe.PaymentIntent.retrieve(stripe.checkout.Session.retrieve(other.id).payment_intent)
    dispute = control("POST", f"/sandbox/stripe/charges/{other_intent.latest_charge}/dispute", {})
    check(stripe.Dispute.retrieve(dispute["id"]).status == "needs_response", "dispute")
    check(stripe.Charge.retrieve(other_intent.latest_charge).disputed, "disputed charge")
    raises(stripe.InvalidRequestError, lambda: stripe.Refund.create(charge=other_intent.latest_charge),
           code="charge_disputed")
    control("POST", f"/sandbox/stripe/disputes/{dispute['id']}/close", {"status": "lost"})
    check(fields(stripe.Dispute.retrieve(dispute["id"])).status == "lost", "dispute lost")

    # The customer portal.
    portal = fields(stripe.billing_portal.Session.create(customer=customer.id, return_url="http://shop.example/account"))
    with urllib.request.urlopen(portal.url, timeout=10) as page:
        check("Your subscriptions" in page.read().decode(), "portal page")

    # Events, read back, and every webhook verified by the library under each secret.
    events = fields(stripe.Event.list(limit=100))
    check(len(events.data) > 20 and events.data[0].created >= events.data[-1].created, "events newest first")
    check(stripe.Event.retrieve(events.data[0].id).type == events.data[0].type, "event retrieve")
    expected = {
        "checkout.session.completed", "payment_intent.succeeded", "payment_intent.payment_failed",
        "charge.succeeded", "invoice.paid", "invoice.payment_failed", "customer.subscription.created",
        "customer.subscription.updated", "customer.subscription.deleted", "charge.refunded", "refund.created",
        "charge.dispute.created", "charge.dispute.closed",
    }
    total = stripe.Event.list(limit=100)
    listed = len(total.data)
    while total.has_more:
        total = stripe.Event.list(limit=100, starting_after=total.data[-1].id)
        listed += len(total.data)
    with received_lock:
        received_lock.wait_for(lambda: len(received) >= listed, timeout=max(1, DEADLINE - time.monotonic()))
        deliveries = list(received)
    check(len(deliveries) == listed, f"{len(deliveries)} webhooks arrived of {listed} events")
    seen = set()
    for body, header, content_type in deliveries:
        check(content_type.startswith("application/json"), f"content type {content_type}")
        for secret in SECRETS:
            event = stripe.Webhook.construct_event(body, header, secret)
        check(event.object == "event" and event.api_version == stripe.api_version, "event envelope")
        check(event.livemode is False and event.pending_webhooks == 1, "event fields")
        stored = stripe.Event.retrieve(event.id)
        check(stored.data.object.id == event.data.object.id, "the event is kept")
        if event.type == "checkout.session.completed":
            check(isinstance(event.data.object, stripe.checkout.Session), "the session parses as a session")
        if event.type == "customer.subscription.updated":
            check("previous_attributes" in event.data, "an update carries previous_attributes")
        seen.add(event.type)
    check(expected <= seen, f"webhooks missing: {sorted(expected - seen)}")
    body, header, _ = deliveries[0]
    raises(stripe.SignatureVerificationError,
           lambda: stripe.Webhook.construct_event(body.replace(b'"livemode":false', b'"livemode":true'), header,
                                                  SECRETS[1]))
    raises(stripe.SignatureVerificationError, lambda: stripe.Webhook.construct_event(body, header, "whsec_other"))
    signed_at = int(header.split(",")[0].split("=")[1])
    with mock.patch("time.time", return_value=signed_at + 301):
        raises(stripe.SignatureVerificationError, lambda: stripe.Webhook.construct_event(body, header, SECRETS[1]))
    for obj in checked:
        raw = obj.to_dict()
        check_fields(raw, None, raw.get("object", "list"))
    for body, _, _ in deliveries:
        check_fields(json.loads(body), None, "webhook")
    server.shutdown()
    print(f"stripe library: {len(deliveries)} webhooks verified ({len(seen)} types), every endpoint parsed, "
          f"every field of {len(checked)} answers and the webhooks declared by the library")


if __name__ == "__main__":
    main()

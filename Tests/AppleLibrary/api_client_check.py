"""Apple's App Store Server Library calls the sandbox store's App Store Server API: every endpoint the library has.

    api_client_check.py http://127.0.0.1:PORT        (run by Tests/AppleLibrary/run, which starts the sandbox store)

The library's `AppStoreServerAPIClient`, with its default settings, is pointed at the sandbox's Apple hosts
(`/apple/sandbox`, `/apple/production`) by a subclass that overrides only `_get_full_url` (the library builds every URL
there from the base URL its environment names): nothing else of the library is changed. It signs its bearer tokens
with an App Store Connect in-app purchase key the sandbox issued (`POST /sandbox/apple/api-keys`). Every answer is
decoded into the library's models, and every signed part of it is verified by a `SignedDataVerifier` that trusts the
sandbox's root only. The errors are the library's `APIException` with Apple's `errorCode`.

Every public method of `AppStoreServerAPIClient` is either called here or listed in `NOT_EMULATED` (the Retention
Messaging API, which the sandbox does not emulate): a method a new library release adds fails the run until it is
one or the other.
"""

import ssl
import sys
import time
import urllib.request
import uuid
import warnings

from appstoreserverlibrary.api_client import APIError, APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.models.OrderLookupStatus import OrderLookupStatus
from appstoreserverlibrary.models.SendAttemptResult import SendAttemptResult
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.Subtype import Subtype
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

import sandbox_support

BASE = sys.argv[1].rstrip("/")
BUNDLE = "com.example.applelibrary.api"
APP_APPLE_ID = 1234567891
DEADLINE = time.monotonic() + 60

# The Retention Messaging API (images, messages, default messages, the realtime URL and its performance test): a
# separate API of Apple's that the sandbox store does not emulate.
NOT_EMULATED = {
    "upload_image", "delete_image", "get_image_list", "upload_message", "delete_message", "get_message_list",
    "configure_default_message", "delete_default_message", "get_default_message", "configure_realtime_url",
    "delete_realtime_url", "get_realtime_url", "initiate_performance_test", "get_performance_test_results",
}


class SandboxAPIClient(AppStoreServerAPIClient):
    """The library's client, unchanged but for the host: the sandbox's mount of the environment's Apple host."""

    def __init__(self, host, **arguments):
        super().__init__(**arguments)
        self._sandbox_host = host

    def _get_full_url(self, path):
        return self._sandbox_host + path


called = set()
checks = []
failures = []


def expect(condition, what):
    checks.append(what)
    if not condition:
        failures.append(what)


def control(method, path, body=None):
    return sandbox_support.call(BASE, method, path, body)


def wait_until(what, condition):
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > DEADLINE:
            sys.exit(f"FAIL: timed out waiting for {what}")
        time.sleep(0.05)


def api_error(call):
    """The APIException `call` raises, or None."""
    try:
        call()
    except APIException as error:
        return error
    return None


sandbox_support.wait_until_ready(BASE, DEADLINE)
with urllib.request.urlopen(BASE + "/sandbox/root.pem", timeout=10) as response:
    ROOT_DER = ssl.PEM_cert_to_DER_cert(response.read().decode())
sandbox_support.start_inbox(BASE)

key = control("POST", "/sandbox/apple/api-keys", {"bundle_id": BUNDLE})


def client(environment):
    host = BASE + ("/apple/production" if environment == Environment.PRODUCTION else "/apple/sandbox")
    return SandboxAPIClient(
        host, signing_key=key["private_key"].encode(), key_id=key["key_id"], issuer_id=key["issuer_id"],
        bundle_id=BUNDLE, environment=environment)


def verifier(environment=Environment.SANDBOX):
    return SignedDataVerifier(
        root_certificates=[ROOT_DER], enable_online_checks=False, environment=environment, bundle_id=BUNDLE,
        app_apple_id=APP_APPLE_ID)


api = client(Environment.SANDBOX)
signed = verifier()

# ---------------------------------------------------------------------------------------------------------------
# The customer's purchases, made at the sandbox as StoreKit would.

customer = str(uuid.uuid4())


def buy(**fields):
    body = {"bundle_id": BUNDLE, "app_account_token": customer, "app_apple_id": APP_APPLE_ID}
    body.update(fields)
    return control("POST", "/sandbox/apple/transactions", body)


seeds = buy(product_id="seeds", type="Consumable", quantity=2)
pro = buy(product_id="pro", type="Non-Consumable")
monthly = buy(product_id="monthly", type="Auto-Renewable Subscription", period="P1M",
              subscription_group_identifier="garden.plus")
# More than a page (20) of history.
extra = [buy(product_id="water", type="Consumable") for _ in range(20)]
production = buy(product_id="seeds", type="Consumable", environment="Production")
control("POST", f"/sandbox/apple/transactions/{pro['transaction_id']}/refund")
purchased = 3 + len(extra)

# ---------------------------------------------------------------------------------------------------------------
# Get Transaction Info.

called.add("get_transaction_info")
info = api.get_transaction_info(seeds["transaction_id"])
transaction = signed.verify_and_decode_signed_transaction(info.signedTransactionInfo)
expect(transaction.transactionId == seeds["transaction_id"] and transaction.quantity == 2,
       "get_transaction_info: the transaction, verified")
expect(transaction.environment == Environment.SANDBOX and transaction.appAccountToken == customer,
       "get_transaction_info: environment and app account token")
production_info = client(Environment.PRODUCTION).get_transaction_info(production["transaction_id"])
production_transaction = verifier(Environment.PRODUCTION).verify_and_decode_signed_transaction(
    production_info.signedTransactionInfo)
expect(production_transaction.transactionId == production["transaction_id"],
       "get_transaction_info (Production host): the production transaction")
missing = api_error(lambda: api.get_transaction_info("1999999999999999"))
expect(missing is not None and missing.http_status_code == 404 and missing.api_error == APIError.TRANSACTION_ID_NOT_FOUND
       and missing.error_message, "get_transaction_info: an unknown id is 404 TransactionIdNotFoundError with a message")
invalid = api_error(lambda: api.get_transaction_info("not-an-id"))
expect(invalid is not None and invalid.http_status_code == 400 and invalid.api_error == APIError.INVALID_TRANSACTION_ID,
       "get_transaction_info: a malformed id is 400 InvalidTransactionIdError")
wrong_host = api_error(lambda: client(Environment.PRODUCTION).get_transaction_info(seeds["transaction_id"]))
expect(wrong_host is not None and wrong_host.api_error == APIError.TRANSACTION_ID_NOT_FOUND,
       "get_transaction_info: the production host does not see sandbox transactions")
stranger = SandboxAPIClient(
    BASE + "/apple/sandbox", signing_key=key["private_key"].encode(), key_id="UNKNOWNKEY", issuer_id=key["issuer_id"],
    bundle_id=BUNDLE, environment=Environment.SANDBOX)
refused = api_error(lambda: stranger.get_transaction_info(seeds["transaction_id"]))
expect(refused is not None and refused.http_status_code == 401 and refused.api_error is None,
       "an unknown key is 401 without an error code")

# ---------------------------------------------------------------------------------------------------------------
# Get Transaction History, v1 and v2, page by page.


def history(version, request):
    transactions, revision, pages = [], None, 0
    while True:
        page = api.get_transaction_history(monthly["transaction_id"], revision, request, version)
        pages += 1
        expect(page.bundleId == BUNDLE and page.environment == Environment.SANDBOX,
               f"get_transaction_history {version.value}: the page names the app and environment")
        transactions += [signed.verify_and_decode_signed_transaction(jws) for jws in page.signedTransactions or []]
        revision = page.revision
        if not page.hasMore:
            return transactions, pages


for version in (GetTransactionHistoryVersion.V1, GetTransactionHistoryVersion.V2):
    called.add("get_transaction_history")
    everything, pages = history(version, TransactionHistoryRequest(sort=Order.ASCENDING))
    expect(len(everything) == purchased and pages == 2,
           f"get_transaction_history {version.value}: {purchased} transactions in 2 pages, got {len(everything)} in {pages}")
    expect([t.purchaseDate for t in everything] == sorted(t.purchaseDate for t in everything),
           f"get_transaction_history {version.value}: ascending")
    subscriptions, _ = history(version, TransactionHistoryRequest(
        productTypes=[ProductType.AUTO_RENEWABLE], subscriptionGroupIdentifiers=["garden.plus"]))
    expect([t.productId for t in subscriptions] == ["monthly"], f"get_transaction_history {version.value}: by type and group")
    refunded, _ = history(version, TransactionHistoryRequest(revoked=True, productIds=["pro", "seeds"]))
    expect([t.productId for t in refunded] == ["pro"], f"get_transaction_history {version.value}: revoked only")
    newest, _ = history(version, TransactionHistoryRequest(sort=Order.DESCENDING, productIds=["seeds", "pro", "monthly"]))
    expect([t.productId for t in newest] == ["monthly", "pro", "seeds"], f"get_transaction_history {version.value}: descending")
bad_revision = api_error(lambda: api.get_transaction_history(monthly["transaction_id"], "bogus", TransactionHistoryRequest()))
expect(bad_revision is not None and bad_revision.api_error == APIError.INVALID_REQUEST_REVISION,
       "get_transaction_history: an unknown revision is InvalidRequestRevisionError")

# ---------------------------------------------------------------------------------------------------------------
# Get All Subscription Statuses.

called.add("get_all_subscription_statuses")
statuses = api.get_all_subscription_statuses(seeds["transaction_id"])
expect(statuses.environment == Environment.SANDBOX and statuses.bundleId == BUNDLE,
       "get_all_subscription_statuses: app and environment")
groups = {group.subscriptionGroupIdentifier: group for group in statuses.data or []}
latest = (groups.get("garden.plus").lastTransactions or [None])[0] if "garden.plus" in groups else None
expect(latest is not None and latest.status == Status.ACTIVE and latest.originalTransactionId == monthly["transaction_id"],
       "get_all_subscription_statuses: the subscription is active")
if latest is not None:
    renewal = signed.verify_and_decode_renewal_info(latest.signedRenewalInfo)
    expect(renewal.productId == "monthly" and renewal.autoRenewStatus is not None, "get_all_subscription_statuses: renewal info")
    expect(signed.verify_and_decode_signed_transaction(latest.signedTransactionInfo).productId == "monthly",
           "get_all_subscription_statuses: the latest transaction")
expired_only = api.get_all_subscription_statuses(seeds["transaction_id"], [Status.EXPIRED, Status.REVOKED])
expect(not expired_only.data, "get_all_subscription_statuses: the status filter leaves out the active one")

# ---------------------------------------------------------------------------------------------------------------
# Look Up Order ID.

called.add("look_up_order_id")
order = api.look_up_order_id(seeds["order_id"])
expect(order.status == OrderLookupStatus.VALID and
       [signed.verify_and_decode_signed_transaction(jws).transactionId for jws in order.signedTransactions or []]
       == [seeds["transaction_id"]], "look_up_order_id: the order's transaction")
expect(api.look_up_order_id("MNOTANORDER").status == OrderLookupStatus.INVALID, "look_up_order_id: an unknown order is INVALID")

# ---------------------------------------------------------------------------------------------------------------
# Get Refund History.

called.add("get_refund_history")
refunds = api.get_refund_history(seeds["transaction_id"], None)
expect([signed.verify_and_decode_signed_transaction(jws).transactionId for jws in refunds.signedTransactions or []]
       == [pro["transaction_id"]] and refunds.hasMore is False and refunds.revision,
       "get_refund_history: the refunded purchase, with a revision")
expect(not api.get_refund_history(seeds["transaction_id"], refunds.revision).signedTransactions,
       "get_refund_history: nothing after the revision")

# ---------------------------------------------------------------------------------------------------------------
# Send Consumption Information (v2) and the older Send Consumption Data (v1).

called.add("send_consumption_information")
api.send_consumption_information(seeds["transaction_id"], ConsumptionRequest(
    customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
    consumptionPercentage=50000))
called.add("send_consumption_data")
# Deprecated by the library, still one of its endpoints (`PUT /inApps/v1/transactions/consumption/{id}`).
warnings.filterwarnings("ignore", category=DeprecationWarning, message="send_consumption_data")
api.send_consumption_data(seeds["transaction_id"], ConsumptionRequestV1(
    customerConsented=True, sampleContentProvided=False, appAccountToken=customer))
kept = control("GET", f"/sandbox/apple/transactions/{seeds['transaction_id']}/consumption")["consumption"]
expect(sorted(entry["version"] for entry in kept) == ["v1", "v2"], "send_consumption_*: both bodies reached the sandbox")
unconsented = api_error(lambda: api.send_consumption_information(seeds["transaction_id"], ConsumptionRequest(
    customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED)))
expect(unconsented is not None and unconsented.http_status_code == 400, "send_consumption_information: consent required")

# ---------------------------------------------------------------------------------------------------------------
# Extend a Subscription Renewal Date, then all active subscribers'.

called.add("extend_subscription_renewal_date")
before = signed.verify_and_decode_signed_transaction(
    api.get_transaction_info(monthly["transaction_id"]).signedTransactionInfo).expiresDate
extended = api.extend_subscription_renewal_date(monthly["transaction_id"], ExtendRenewalDateRequest(
    extendByDays=3, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=str(uuid.uuid4())))
expect(extended.success is True and extended.originalTransactionId == monthly["transaction_id"]
       and extended.effectiveDate and extended.effectiveDate > before, "extend_subscription_renewal_date: extended")
too_long = api_error(lambda: api.extend_subscription_renewal_date(monthly["transaction_id"], ExtendRenewalDateRequest(
    extendByDays=91, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier=str(uuid.uuid4()))))
expect(too_long is not None and too_long.api_error == APIError.INVALID_EXTEND_BY_DAYS,
       "extend_subscription_renewal_date: 91 days is InvalidExtendByDaysError")

called.add("extend_renewal_date_for_all_active_subscribers")
request_identifier = str(uuid.uuid4())
mass = api.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
    extendByDays=1, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE, requestIdentifier=request_identifier,
    storefrontCountryCodes=["USA"], productId="monthly"))
expect(mass.requestIdentifier == request_identifier, "extend_renewal_date_for_all_active_subscribers: accepted")
called.add("get_status_of_subscription_renewal_date_extensions")
status = api.get_status_of_subscription_renewal_date_extensions(request_identifier, "monthly")
expect(status.requestIdentifier == request_identifier and status.complete is True and status.completeDate
       and status.succeededCount == 1 and status.failedCount == 0,
       f"get_status_of_subscription_renewal_date_extensions: complete, 1 extended (got {status})")
unknown = api_error(lambda: api.get_status_of_subscription_renewal_date_extensions(str(uuid.uuid4()), "monthly"))
expect(unknown is not None and unknown.http_status_code == 404 and unknown.api_error == APIError.STATUS_REQUEST_NOT_FOUND,
       "get_status_of_subscription_renewal_date_extensions: an unknown request is StatusRequestNotFoundError")

# ---------------------------------------------------------------------------------------------------------------
# Set App Account Token, Get App Transaction Info, Finish Transaction.

called.add("set_app_account_token")
new_token = str(uuid.uuid4())
api.set_app_account_token(monthly["transaction_id"], UpdateAppAccountTokenRequest(appAccountToken=new_token))
retokened = signed.verify_and_decode_signed_transaction(
    api.get_transaction_info(monthly["transaction_id"]).signedTransactionInfo)
expect(retokened.appAccountToken == new_token, "set_app_account_token: the transaction carries the new token")
not_uuid = api_error(lambda: api.set_app_account_token(
    monthly["transaction_id"], UpdateAppAccountTokenRequest(appAccountToken="not-a-uuid")))
expect(not_uuid is not None and not_uuid.api_error == APIError.INVALID_APP_ACCOUNT_TOKEN_UUID_ERROR,
       "set_app_account_token: a token that is not a UUID is refused")

called.add("get_app_transaction_info")
app_info = api.get_app_transaction_info(seeds["transaction_id"])
app_transaction = signed.verify_and_decode_app_transaction(app_info.signedAppTransactionInfo)
expect(app_transaction.bundleId == BUNDLE and app_transaction.receiptType == Environment.SANDBOX
       and app_transaction.appTransactionId == transaction.appTransactionId,
       "get_app_transaction_info: the customer's app transaction, with the transactions' appTransactionId")

called.add("finish_transaction")
expect(api.finish_transaction(seeds["transaction_id"]) is None, "finish_transaction: accepted")

# ---------------------------------------------------------------------------------------------------------------
# Request a Test Notification, Get Test Notification Status, Get Notification History.

called.add("request_test_notification")
token = api.request_test_notification().testNotificationToken
expect(bool(token), "request_test_notification: a token")
called.add("get_test_notification_status")


def test_status():
    try:
        return api.get_test_notification_status(token)
    except APIException as error:
        if error.api_error != APIError.TEST_NOTIFICATION_NOT_FOUND:
            raise
        return None


test = wait_until("the test notification's first attempt", test_status)
test_payload = signed.verify_and_decode_notification(test.signedPayload)
expect(test_payload.notificationType == NotificationTypeV2.TEST, "get_test_notification_status: the TEST notification")
expect([attempt.sendAttemptResult for attempt in test.sendAttempts or []] == [SendAttemptResult.SUCCESS],
       "get_test_notification_status: delivered at the first attempt")
bad_token = api_error(lambda: api.get_test_notification_status("bogus"))
expect(bad_token is not None and bad_token.http_status_code in (400, 404), "get_test_notification_status: a bogus token")

called.add("get_notification_history")
now = int(time.time() * 1000)
listed, pagination = [], None
while True:
    page = api.get_notification_history(pagination, NotificationHistoryRequest(
        startDate=now - 3_600_000, endDate=now + 60_000))
    listed += [item.signedPayload for item in page.notificationHistory or []]
    pagination = page.paginationToken
    if not page.hasMore:
        break
kinds = [signed.verify_and_decode_notification(payload) for payload in listed]
expect(test.signedPayload in listed, "get_notification_history: the TEST notification")
expect(any(n.notificationType == NotificationTypeV2.RENEWAL_EXTENSION and n.subtype == Subtype.SUMMARY
           and n.summary is not None and n.summary.requestIdentifier == request_identifier
           and n.summary.succeededCount == 1 for n in kinds),
       "get_notification_history: the mass extension's RENEWAL_EXTENSION SUMMARY")
expect(any(n.notificationType == NotificationTypeV2.RENEWAL_EXTENDED for n in kinds),
       "get_notification_history: RENEWAL_EXTENDED")
only_tests = api.get_notification_history(None, NotificationHistoryRequest(
    startDate=now - 3_600_000, endDate=now + 60_000, notificationType=NotificationTypeV2.TEST))
expect([signed.verify_and_decode_notification(item.signedPayload).notificationType
        for item in only_tests.notificationHistory or []] == [NotificationTypeV2.TEST],
       "get_notification_history: by notification type")
no_start = api_error(lambda: api.get_notification_history(None, NotificationHistoryRequest(endDate=now)))
expect(no_start is not None and no_start.api_error == APIError.INVALID_START_DATE,
       "get_notification_history: without startDate is InvalidStartDateError")
received = sandbox_support.Inbox.received()
expect(test.signedPayload in received, "the TEST notification reached the app's server")

# ---------------------------------------------------------------------------------------------------------------

public = {name for name in dir(AppStoreServerAPIClient) if not name.startswith("_")}
unchecked = sorted(public - called - NOT_EMULATED)
expect(not unchecked, f"every endpoint of the library is called (not called: {unchecked})")

print(f"[apple-library] API client: {len(called)} endpoints called, {len(checks)} checks")
sandbox_support.finish(len(checks) - len(failures), failures)

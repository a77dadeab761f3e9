#!/usr/bin/env python3
"""Apple's own App Store Server API client against `simctl serve`.

    server_api_client.py SIMCTL SCENARIO ROOT_DER

Starts `SIMCTL serve SCENARIO --port 0 --environment Production --deliver <a receiver in this script>
--api-key-pem <a throwaway key's public half>`, reads the URL from the first line of its output, and points
AppStoreServerAPIClient (Apple's App Store Server Library, base URL replaced by the local one; its JWT signed with
the throwaway ES256 key) at it. It drives the store through the control API (advance the clock so the scenario's
timeline runs, then a refund), and calls every endpoint simctl serves: Get All Subscription Statuses (with and
without the status filter), Get Transaction History v1 (the client's default) and v2 (every page, by revision), Get
Transaction Info, Get Refund History, Get Notification History (every page), Request a Test Notification and Get
Test Notification Status, Extend a Subscription Renewal Date, Extend Subscription Renewal Dates for All Active
Subscribers and Get Status of Subscription Renewal Date Extensions, Set App Account Token, Send Consumption
Information v1 and v2, Finish Transaction, Look Up Order ID and Get App Transaction Info, plus Apple's error answers
of each (every one must carry an errorCode the library knows: APIException.api_error set) and a token signed with
another key (401, which Apple documents without a body).

Checks: the library's typed models accept every answer, and unstructuring them gives back exactly the JSON
received (nothing unknown, nothing dropped); every signed field (transactions, renewal infos, notification
history and test notification payloads, and every body the receiver got) verifies and decodes with
SignedDataVerifier against simctl's root (ROOT_DER, from `simctl certs export`); the receiver got every
notification and the TEST one; SIGTERM stops the server with exit code 0.

Prints one line per failure and ends with "server API client: N passed, M failed"; exits 1 on any failure.
"""
import datetime
import http.server
import json
import subprocess
import sys
import tempfile
import threading
import urllib.request
import uuid
import warnings
from pathlib import Path

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.OrderLookupStatus import OrderLookupStatus
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.models.StatusResponse import StatusResponse
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, TransactionHistoryRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

BUNDLE_ID = "com.example.nightsky"
APP_APPLE_ID = 1234567890
ISSUER = "57246542-96fe-1a63-e053-0824d011072a"

passed = 0
failures = []


def check(condition, what):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what)
        print(f"FAIL {what}")


class RecordingClient(AppStoreServerAPIClient):
    """Apple's client, keeping the raw JSON of each answer so the models' round trip can be compared."""

    last_json = None

    def _execute_request(self, method, url, params, headers, json_body, data):
        response = super()._execute_request(method, url, params, headers, json_body, data)
        try:
            RecordingClient.last_json = response.json()
        except ValueError:
            RecordingClient.last_json = None
        return response


def round_trips(model, what):
    converter = _get_cattrs_converter(type(model))
    check(converter.unstructure(model) == RecordingClient.last_json, f"{what}: the model round trip changes the JSON")


class Receiver(http.server.BaseHTTPRequestHandler):
    bodies = []

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        Receiver.bodies.append(self.rfile.read(length).decode("utf-8"))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def control(url, path, body):
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def state(url):
    with urllib.request.urlopen(url + "/simctl/v1/state", timeout=60) as response:
        return json.loads(response.read())


def main():
    simctl, scenario, root_der = sys.argv[1], sys.argv[2], Path(sys.argv[3]).read_bytes()
    key = ec.generate_private_key(ec.SECP256R1())
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    other_pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    workspace = tempfile.mkdtemp()
    public_path = Path(workspace) / "api-key.pub.pem"
    public_path.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    receiver_url = f"http://127.0.0.1:{receiver.server_address[1]}/notifications"

    server = subprocess.Popen(
        [simctl, "serve", scenario, "--port", "0", "--environment", "Production", "--deliver", receiver_url,
         "--api-key-pem", str(public_path), "--log", str(Path(workspace) / "serve.log")],
        stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:"), f"the first line is the URL, found {url!r}")
        exercise(url, private_pem, other_pem, root_der)
    finally:
        server.terminate()  # SIGTERM
        code = server.wait(timeout=30)
        receiver.shutdown()
    check(code == 0, f"simctl serve exits 0 after SIGTERM, found {code}")
    print(f"server API client: {passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


def exercise(url, private_pem, other_pem, root_der):
    client = RecordingClient(private_pem, "SIMCTLKEY1", ISSUER, BUNDLE_ID, Environment.PRODUCTION)
    client._base_url = url  # Apple's client builds every URL as base URL + Apple's path.
    verifier = SignedDataVerifier([root_der], False, Environment.PRODUCTION, BUNDLE_ID, APP_APPLE_ID)

    # The scenario's timeline runs as the clock passes it; then a refund through the control API.
    control(url, "/simctl/v1/advance", {"by": "P2M"})
    refund = control(url, "/simctl/v1/actions", {"refund": {"customer": "alice", "product": "com.example.nightsky.family.monthly"}})
    check(refund["action"] == "refund", "the refund action runs")
    control(url, "/simctl/v1/advance", {"by": "1d"})
    customers = {c["customer"]: c for c in state(url)["customers"]}
    alice = customers["alice"]["subscriptions"][0]
    bob = customers["bob"]["subscriptions"][0]

    def verify_transaction(jws, what):
        try:
            decoded = verifier.verify_and_decode_signed_transaction(jws)
            check(decoded.bundleId == BUNDLE_ID, f"{what}: bundleId")
        except Exception as error:  # noqa: BLE001 - any failure is reported
            check(False, f"{what}: {error!r}")

    def verify_renewal(jws, what):
        try:
            verifier.verify_and_decode_renewal_info(jws)
            check(True, what)
        except Exception as error:  # noqa: BLE001
            check(False, f"{what}: {error!r}")

    def verify_notification(jws, what):
        try:
            notification = verifier.verify_and_decode_notification(jws)
            if notification.data is not None and notification.data.signedTransactionInfo is not None:
                verify_transaction(notification.data.signedTransactionInfo, what + " transaction")
            if notification.data is not None and notification.data.signedRenewalInfo is not None:
                verify_renewal(notification.data.signedRenewalInfo, what + " renewal")
            return notification
        except Exception as error:  # noqa: BLE001
            check(False, f"{what}: {error!r}")
            return None

    for name, subscription in [("alice", alice), ("bob", bob)]:
        statuses = client.get_all_subscription_statuses(subscription["originalTransactionId"])
        round_trips(statuses, f"{name} statuses")
        check(statuses.bundleId == BUNDLE_ID and statuses.appAppleId == APP_APPLE_ID, f"{name} statuses: app")
        for group in statuses.data:
            for item in group.lastTransactions:
                verify_transaction(item.signedTransactionInfo, f"{name} status transaction")
                verify_renewal(item.signedRenewalInfo, f"{name} status renewal")
        filtered = client.get_all_subscription_statuses(subscription["originalTransactionId"], [Status.ACTIVE])
        round_trips(filtered, f"{name} statuses filtered")

        revision, pages, signed = None, 0, []
        while True:
            history = client.get_transaction_history(
                subscription["originalTransactionId"], revision, TransactionHistoryRequest(sort=Order.ASCENDING),
                GetTransactionHistoryVersion.V2)
            round_trips(history, f"{name} history page {pages + 1}")
            signed += history.signedTransactions
            pages += 1
            revision = history.revision
            if not history.hasMore or pages > 50:
                break
        check(len(signed) >= 2, f"{name} history has the purchase and its renewals, found {len(signed)}")
        for index, jws in enumerate(signed):
            verify_transaction(jws, f"{name} history transaction {index}")

        info = client.get_transaction_info(subscription["transactionId"])
        round_trips(info, f"{name} transaction info")
        verify_transaction(info.signedTransactionInfo, f"{name} transaction info")

        refunds = client.get_refund_history(subscription["originalTransactionId"], None)
        round_trips(refunds, f"{name} refund history")
        for jws in refunds.signedTransactions:
            verify_transaction(jws, f"{name} refund history transaction")
        if name == "alice":
            check(len(refunds.signedTransactions) == 1, f"alice's refund is in her refund history")

    now = state(url)["now"]
    token = None
    records = []
    while True:
        page = client.get_notification_history(
            token, NotificationHistoryRequest(startDate=now - 100 * 86_400_000, endDate=now + 1))
        round_trips(page, "notification history")
        records += page.notificationHistory
        token = page.paginationToken
        if not page.hasMore:
            break
    check(len(records) == len(Receiver.bodies), f"the history lists every notification delivered "
          f"({len(records)} listed, {len(Receiver.bodies)} received)")
    for index, record in enumerate(records):
        verify_notification(record.signedPayload, f"history {index}")
        check(record.sendAttempts and record.sendAttempts[-1].sendAttemptResult == "SUCCESS",
              f"history {index}: its last attempt succeeded")

    test = client.request_test_notification()
    round_trips(test, "request test notification")
    status = client.get_test_notification_status(test.testNotificationToken)
    round_trips(status, "test notification status")
    notification = verify_notification(status.signedPayload, "test notification")
    check(notification is not None and notification.rawNotificationType == "TEST", "the test notification is TEST")
    check(status.sendAttempts[0].sendAttemptResult == "SUCCESS", "the test notification was delivered")
    check(any(json.loads(body)["signedPayload"] == status.signedPayload for body in Receiver.bodies),
          "the receiver got the test notification")
    for index, body in enumerate(Receiver.bodies):
        verify_notification(json.loads(body)["signedPayload"], f"received {index}")

    for call, code, what in [
        (lambda: client.get_transaction_info("999999999"), 4040010, "unknown transaction id"),
        (lambda: client.get_all_subscription_statuses("abc"), 4000006, "invalid transaction id"),
        (lambda: client.get_refund_history(alice["originalTransactionId"], "bad-revision"), 4000005, "bad revision"),
    ]:
        try:
            call()
            check(False, f"{what}: no error")
        except APIException as error:
            check(error.raw_api_error == code, f"{what}: errorCode {error.raw_api_error}, expected {code}")
            check(error.api_error is not None, f"{what}: the library knows errorCode {error.raw_api_error}")
    exercise_changes(url, client, verifier, verify_transaction, verify_renewal, verify_notification)
    intruder = RecordingClient(other_pem, "OTHERKEY12", ISSUER, BUNDLE_ID, Environment.PRODUCTION)
    intruder._base_url = url
    try:
        intruder.get_transaction_info(alice["transactionId"])
        check(False, "a token signed with another key is accepted")
    except APIException as error:
        check(error.http_status_code == 401, f"a token signed with another key: HTTP {error.http_status_code}")


def exercise_changes(url, client, verifier, verify_transaction, verify_renewal, verify_notification):
    """The endpoints that change the store, and the reads that go with them, on a new subscriber (erin)."""
    # Send Consumption Information v1 is deprecated by Apple; it is still served, so it is still called.
    warnings.filterwarnings("ignore", message="send_consumption_data is deprecated")
    product = "com.example.nightsky.family.monthly"
    bought = control(url, "/simctl/v1/actions", {"purchase": {"customer": "erin", "product": product}})
    check(bought["action"] == "purchase", "erin subscribes")
    erin = next(c for c in state(url)["customers"] if c["customer"] == "erin")
    original = erin["subscriptions"][0]["originalTransactionId"]
    received_before = len(Receiver.bodies)

    # History v1, Apple's Python client's default version.
    history = client.get_transaction_history(original, None, TransactionHistoryRequest(revoked=False))
    round_trips(history, "erin history v1")
    check(len(history.signedTransactions) == 1, f"erin's v1 history has her purchase, found {len(history.signedTransactions)}")
    for jws in history.signedTransactions:
        verify_transaction(jws, "erin history v1 transaction")

    extension_id = str(uuid.uuid4())
    extended = client.extend_subscription_renewal_date(original, ExtendRenewalDateRequest(
        extendByDays=3, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=extension_id))
    round_trips(extended, "extend a subscription renewal date")
    check(extended.success is True and extended.originalTransactionId == original, "the extension succeeded")
    info = verifier.verify_and_decode_signed_transaction(
        client.get_transaction_info(erin["subscriptions"][0]["transactionId"]).signedTransactionInfo)
    check(info.expiresDate == extended.effectiveDate, "effectiveDate is the new expiresDate")
    # A retry with the same requestIdentifier is answered as the first time and extends nothing more (rule
    # extension-request-identifier-once [assumed]).
    retried = client.extend_subscription_renewal_date(original, ExtendRenewalDateRequest(
        extendByDays=3, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=extension_id))
    check(retried == extended, f"a repeated requestIdentifier answers the first extension: {retried} vs {extended}")
    info = verifier.verify_and_decode_signed_transaction(
        client.get_transaction_info(erin["subscriptions"][0]["transactionId"]).signedTransactionInfo)
    check(info.expiresDate == extended.effectiveDate, "a repeated requestIdentifier does not extend again")

    request_id = str(uuid.uuid4())
    mass = client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
        extendByDays=1, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE, requestIdentifier=request_id,
        productId=product))
    round_trips(mass, "mass extension")
    check(mass.requestIdentifier == request_id, "the mass extension answers its requestIdentifier")
    status = client.get_status_of_subscription_renewal_date_extensions(request_id, product)
    round_trips(status, "mass extension status")
    check(status.complete is True and status.succeededCount is not None and status.succeededCount >= 1,
          f"the mass extension completed: {status}")
    types = []
    for body in Receiver.bodies[received_before:]:
        notification = verify_notification(json.loads(body)["signedPayload"], "received after an extension")
        if notification is not None:
            types.append((notification.rawNotificationType, notification.rawSubtype))
    check(("RENEWAL_EXTENDED", None) in types, f"RENEWAL_EXTENDED was delivered: {types}")
    check(("RENEWAL_EXTENSION", "SUMMARY") in types, f"RENEWAL_EXTENSION/SUMMARY was delivered: {types}")

    token = str(uuid.uuid4())
    check(client.set_app_account_token(original, UpdateAppAccountTokenRequest(appAccountToken=token)) is None,
          "Set App Account Token answers 200 with no body")
    statuses = client.get_all_subscription_statuses(original)
    item = statuses.data[0].lastTransactions[0]
    check(verifier.verify_and_decode_signed_transaction(item.signedTransactionInfo).appAccountToken == token,
          "the token is on the transaction")
    check(verifier.verify_and_decode_renewal_info(item.signedRenewalInfo).appAccountToken == token,
          "the token is on the renewal info")

    control(url, "/simctl/v1/actions", {"requestRefund": {"customer": "erin", "product": product,
                                                           "reason": "UNSATISFIED_WITH_PURCHASE"}})
    transaction_id = erin["subscriptions"][0]["transactionId"]
    client.send_consumption_information(transaction_id, ConsumptionRequest(
        customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
        refundPreference=RefundPreference.GRANT_PRORATED))
    client.send_consumption_data(transaction_id, ConsumptionRequestV1(customerConsented=True))
    client.finish_transaction(transaction_id)
    shown = next(t for c in state(url)["customers"] if c["customer"] == "erin" for t in c["transactions"]
                 if t["transactionId"] == transaction_id)
    check(shown.get("finished") is True, "Finish Transaction is in the state")
    check(len(shown.get("consumptionInformation", [])) == 2, "both consumption informations are in the state")

    order = client.look_up_order_id(shown["orderId"])
    round_trips(order, "look up order id")
    check(order.status == OrderLookupStatus.VALID and len(order.signedTransactions) == 1, "the order is found")
    for jws in order.signedTransactions:
        verify_transaction(jws, "order transaction")
    unknown_order = client.look_up_order_id("MAAAAAAAAA")
    round_trips(unknown_order, "look up an unknown order id")
    check(unknown_order.status == OrderLookupStatus.INVALID, "an unknown order id is INVALID")

    app = client.get_app_transaction_info(transaction_id)
    round_trips(app, "app transaction info")
    try:
        decoded = verifier.verify_and_decode_app_transaction(app.signedAppTransactionInfo)
        check(decoded.appTransactionId == info.appTransactionId, "the app transaction is erin's")
    except Exception as error:  # noqa: BLE001
        check(False, f"app transaction: {error!r}")

    for call, code, what in [
        (lambda: client.get_transaction_history("abc", None, TransactionHistoryRequest()), 4000006, "history v1 id"),
        (lambda: client.extend_subscription_renewal_date(original, ExtendRenewalDateRequest(
            extendByDays=91, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="x")), 4000009, "extend 91 days"),
        (lambda: client.extend_subscription_renewal_date("999999", ExtendRenewalDateRequest(
            extendByDays=1, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="x")), 4040005, "extend unknown"),
        (lambda: client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
            extendByDays=1, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="x", productId="nope")),
         4000023, "mass extension of an unknown product"),
        (lambda: client.get_status_of_subscription_renewal_date_extensions("unknown", product), 4040009,
         "status of an unknown mass extension"),
        (lambda: client.set_app_account_token(original, UpdateAppAccountTokenRequest(appAccountToken="nope")),
         4000183, "a token that is not a UUID"),
        (lambda: client.send_consumption_information(transaction_id, ConsumptionRequest(
            customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED)),
         4000035, "consumption without consent"),
        (lambda: client.send_consumption_data("999999", ConsumptionRequestV1(customerConsented=True)), 4040010,
         "consumption v1 for an unknown transaction"),
        (lambda: client.finish_transaction("999999"), 4040010, "finish an unknown transaction"),
        (lambda: client.get_app_transaction_info("abc"), 4000006, "app transaction of an invalid id"),
        # Rule app-transaction-id-not-supported: transactionId endpoints refuse an appTransactionId.
        (lambda: client.get_transaction_info(info.appTransactionId), 4000048, "transaction info of an app transaction id"),
        (lambda: client.finish_transaction(info.appTransactionId), 4000048, "finish an app transaction id"),
        (lambda: client._make_request("/inApps/v1/nothing", "GET", {}, None, StatusResponse, None), 4000000,
         "an unknown path"),
    ]:
        try:
            call()
            check(False, f"{what}: no error")
        except APIException as error:
            check(error.raw_api_error == code, f"{what}: errorCode {error.raw_api_error}, expected {code}")
            check(error.api_error is not None, f"{what}: the library knows errorCode {error.raw_api_error}")


if __name__ == "__main__":
    main()

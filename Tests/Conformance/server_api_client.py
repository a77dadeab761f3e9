#!/usr/bin/env python3
"""Apple's own App Store Server API client against `simctl serve`.

    server_api_client.py SIMCTL SCENARIO ROOT_DER

Starts `SIMCTL serve SCENARIO --port 0 --environment Production --deliver <a receiver in this script>
--api-key-pem <a throwaway key's public half>`, reads the URL from the first line of its output, and points
AppStoreServerAPIClient (Apple's App Store Server Library, base URL replaced by the local one; its JWT signed with
the throwaway ES256 key) at it. It drives the store through the control API (advance the clock so the scenario's
timeline runs, then a refund), and calls every endpoint simctl serves: Get All Subscription Statuses (with and
without the status filter), Get Transaction History v2 (every page, by revision), Get Transaction Info, Get Refund
History, Get Notification History (every page), Request a Test Notification and Get Test Notification Status, plus
Apple's error answers (unknown id, invalid id, a token signed with another key: 401).

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
from pathlib import Path

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
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
    intruder = RecordingClient(other_pem, "OTHERKEY12", ISSUER, BUNDLE_ID, Environment.PRODUCTION)
    intruder._base_url = url
    try:
        intruder.get_transaction_info(alice["transactionId"])
        check(False, "a token signed with another key is accepted")
    except APIException as error:
        check(error.http_status_code == 401, f"a token signed with another key: HTTP {error.http_status_code}")


if __name__ == "__main__":
    main()

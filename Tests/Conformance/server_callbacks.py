#!/usr/bin/env python3
"""A webhook that calls `simctl serve` back during its own delivery, with Apple's client (issue 25, 1 and 4).

    server_callbacks.py SIMCTL SCENARIO

Starts a webhook in this script, then `SIMCTL serve SCENARIO --port 0 --environment Production --deliver <the
webhook>`, and reads the
server's URL from the first line of its output. The webhook, for every notification, first waits until that URL
is known (so a server that delivered before printing it would time out), then calls Get All Subscription Statuses
with Apple's AppStoreServerAPIClient and reads GET /simctl/v1/state, and only then answers 200. One notification
(the first DID_FAIL_TO_RENEW) takes 2 s more; meanwhile another client reads GET /simctl/v1/state and Get All
Subscription Statuses (timed) and tries a mutating call (expects 409 with the reason).

Checks: every notification of the story arrives on its first attempt and Get Notification History shows exactly
one SUCCESS attempt each (no TIMED_OUT); each answer the webhook read already shows the state of the notification
it handles (the clock equals its signedDate, the status equals its data.status, the signed transaction's
signedDate equals its signedDate); the other client's reads are answered in well under a second (under 0.5 s);
a reset gives new notificationUUIDs and a reset with {"epoch": "same"} the same bytes again; SIGTERM exits 0.

Prints one line per failure and ends with "server callbacks: N passed, M failed"; exits 1 on any failure.
"""
import base64
import datetime
import http.server
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from appstoreserverlibrary.api_client import AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

passed = 0
failures = []


def check(condition, what):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what)
        print(f"FAIL {what}")


def payload(jws):
    """The JSON payload of a compact JWS (signatures are checked by server_api_client.py)."""
    part = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def call(base_url, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base_url + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


class Context:
    base_url = None
    url_known = threading.Event()
    client = None
    lock = threading.Lock()
    seen = []  # (notification payload, state answer, statuses answer)
    bodies = []
    slow_started = threading.Event()
    slow_done = False


def webhook_handler(context):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            context.url_known.wait(10)
            notification = payload(json.loads(body)["signedPayload"])
            data = notification.get("data", {})
            transaction = payload(data["signedTransactionInfo"]) if "signedTransactionInfo" in data else None
            statuses = None
            if transaction is not None:
                statuses = context.client.get_all_subscription_statuses(transaction["originalTransactionId"])
            _, state = call(context.base_url, "GET", "/simctl/v1/state")
            with context.lock:
                context.seen.append((notification, state, statuses, transaction))
                context.bodies.append(body)
                slow = notification["notificationType"] == "DID_FAIL_TO_RENEW" and not context.slow_done
                context.slow_done = context.slow_done or slow
            if slow:
                context.slow_started.set()
                time.sleep(2)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


def other_client(context, results):
    """Another client, during the 2 s delivery: reads (timed) and a mutating call."""
    if not context.slow_started.wait(30):
        results["error"] = "the slow delivery never started"
        return
    started = time.monotonic()
    status, state = call(context.base_url, "GET", "/simctl/v1/state")
    results["state"] = (status, time.monotonic() - started)
    alice = state["customers"][0]["subscriptions"][0]["originalTransactionId"]
    started = time.monotonic()
    context.client.get_all_subscription_statuses(alice)
    results["statuses"] = time.monotonic() - started
    results["busy"] = call(context.base_url, "POST", "/simctl/v1/advance", {"by": "1d"})


def main():
    simctl, scenario = sys.argv[1], sys.argv[2]
    context = Context()
    webhook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), webhook_handler(context))
    threading.Thread(target=webhook.serve_forever, daemon=True).start()
    server = subprocess.Popen(
        # Production: Get Notification History looks back 180 days there (30 elsewhere), the whole story.
        [simctl, "serve", scenario, "--port", "0", "--environment", "Production", "--deliver",
         f"http://127.0.0.1:{webhook.server_address[1]}/apple"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        context.base_url = server.stdout.readline().strip()
        key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        context.client = AppStoreServerAPIClient(
            key, "TESTKEY123", "issuer-id", "com.example.nightsky", Environment.PRODUCTION)
        context.client._base_url = context.base_url
        context.url_known.set()

        results = {}
        other = threading.Thread(target=other_client, args=(context, results))
        other.start()
        started = time.monotonic()
        status, answer = call(context.base_url, "POST", "/simctl/v1/advance", {"by": "P2M"})
        check(status == 200, f"advance P2M answered {status} {answer}")
        check(time.monotonic() - started < 5 + 2, "advance took longer than the one slow delivery allows")
        other.join(30)
        check("error" not in results, results.get("error", ""))
        if "state" in results:
            print(f"during a 2 s delivery: GET /simctl/v1/state {results['state'][1] * 1000:.1f} ms, "
                  f"Get All Subscription Statuses {results['statuses'] * 1000:.1f} ms")
            check(results["state"][0] == 200 and results["state"][1] < 0.5,
                  f"GET /simctl/v1/state during a 2 s delivery took {results['state'][1]:.3f} s")
            check(results["statuses"] < 0.5,
                  f"Get All Subscription Statuses during a 2 s delivery took {results['statuses']:.3f} s")
            busy_status, busy = results["busy"]
            check(busy_status == 409 and "is still running" in busy.get("error", ""),
                  f"a mutating call during a delivery: {busy_status} {busy}")

        # Every notification of the story, each seen with the state of its own instant.
        check(len(context.seen) == 8, f"the webhook got {len(context.seen)} notifications, expected 8")
        for notification, state, statuses, transaction in context.seen:
            what = f"{notification['notificationType']} at {notification['signedDate']}"
            check(state["now"] == notification["signedDate"], f"{what}: /simctl/v1/state now is {state['now']}")
            if statuses is None:
                continue
            group = statuses.data[0]
            last = next(t for t in group.lastTransactions
                        if t.originalTransactionId == transaction["originalTransactionId"])
            check(last.rawStatus == notification["data"]["status"],
                  f"{what}: Get All Subscription Statuses says status {last.rawStatus}, "
                  f"the notification {notification['data']['status']}")
            check(payload(last.signedTransactionInfo)["signedDate"] == notification["signedDate"],
                  f"{what}: the status answer is signed at another instant")

        # Get Notification History: one SUCCESS attempt each, no TIMED_OUT.
        start = int(datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc).timestamp() * 1000)
        request = NotificationHistoryRequest(startDate=start, endDate=start + 100 * 86_400_000)
        history, token = [], None
        while True:
            page = context.client.get_notification_history(token, request)
            history += page.notificationHistory
            token = page.paginationToken
            if not page.hasMore:
                break
        check(len(history) == 8, f"notification history has {len(history)} notifications, expected 8")
        for item in history:
            results_seen = [attempt.rawSendAttemptResult for attempt in item.sendAttempts]
            check(results_seen == ["SUCCESS"], f"send attempts {results_seen}, expected one SUCCESS")

        # Reset: new notificationUUIDs (a de-duplicating backend sees the replay); the same epoch: the same bytes.
        before = len(context.bodies)
        status, answer = call(context.base_url, "POST", "/simctl/v1/reset", {})
        check(status == 200 and answer.get("epoch") == 1, f"reset: {status} {answer}")
        call(context.base_url, "POST", "/simctl/v1/advance", {"by": "P2M"})
        first = [payload(json.loads(b)["signedPayload"])["notificationUUID"] for b in context.bodies[:before]]
        second = context.bodies[before:]
        replay = [payload(json.loads(b)["signedPayload"])["notificationUUID"] for b in second]
        check(len(replay) == 8 and not set(first) & set(replay), "reset gave notificationUUIDs seen before")
        status, answer = call(context.base_url, "POST", "/simctl/v1/reset", {"epoch": "same"})
        check(status == 200 and answer.get("epoch") == 1, f"reset same: {status} {answer}")
        call(context.base_url, "POST", "/simctl/v1/advance", {"by": "P2M"})
        check(context.bodies[before + len(second):] == second, "reset with the same epoch gave other bytes")
    finally:
        server.terminate()
        check(server.wait(30) == 0, "SIGTERM: exit code 0")
        webhook.shutdown()
    print(f"server callbacks: {passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

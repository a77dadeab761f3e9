#!/usr/bin/env python3
"""A reference backend for `simctl check` (docs/check.md), Python standard library only.

It receives App Store Server Notifications V2 on POST / and answers the check's entitlement query on
GET /entitlements/{originalTransactionId} with {"active": bool, "productId": str} (404 when it never heard of it).

The correct handling: de-duplicate on notificationUUID; keep, per originalTransactionId, the newest notification by
signedDate (an older one arriving late, after a failed attempt, is ignored); a subscription gives access while the
notification's data.status is 1 (active) or 4 (billing grace period); a non-consumable gives access unless its
transaction is revoked. The payloads are decoded without verifying their signatures (a real backend verifies them,
for example with Apple's App Store Server Library).

--bug NAME makes it wrong in one classic way, so that `simctl check` can be seen to find it:
  fail-ends-access         ends access on any DID_FAIL_TO_RENEW (also the one that starts a grace period)
  ignore-revoke            ignores REVOKE (family sharing stopped, or the purchaser's refund)
  older-overwrites         applies a late, older notification over a newer one
  past-refund-ends-access  ends access on any REFUND, also the refund of a past renewal
  no-billing-recovery      ignores DID_RENEW / BILLING_RECOVERY, so access lost in billing retry never returns
Several at once: --bug fail-ends-access,past-refund-ends-access (the two-bug backend of `check --keep-going`).

More modes (issue 47, docs/check.md "Checking an existing backend"):
  --refuse TYPE      answers 500 to every notification of notificationType TYPE (a kind it does not handle)
  --clock            decides access the way many backends do: it stores the dates (the latest expiresDate seen,
                     the grace period's end, revocation) and compares them with the time of the query, read from
                     ?now=MS (the check's {now}) or else the X-Simctl-Now header; a subscription gives access while
                     now < max(expiresDate, gracePeriodExpiresDate) and it is not revoked
  --keep-access MS   with --clock: keeps access MS milliseconds past those dates (a deliberate tolerance)
  --state FILE       persistent: loads its state from FILE at start and writes it back after each notification
                     (a database that outlives the process, for `check --epoch auto`)

Usage: backend.py [--port N] [--bug NAME] [--tls-cert FILE --tls-key FILE [--http-port N]]; prints
"listening on PORT" once it accepts connections (port 0, the default, picks a free one).

With --tls-cert and --tls-key (PEM files; Python's ssl module) it serves HTTPS on --port, for `simctl check --deliver
https://...`, and the same state over plain HTTP on --http-port as well (0 picks a free port), for the entitlement
queries: simctl's query client speaks http:// only. It then prints two lines, "listening on PORT (https)" and
"listening on PORT (http)"; both listeners answer both routes.
"""

import argparse
import base64
import json
import os
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

BUGS = ["fail-ends-access", "ignore-revoke", "older-overwrites", "past-refund-ends-access", "no-billing-recovery"]


def bugs(text):
    """--bug's value: names of BUGS separated by commas."""
    for name in text.split(","):
        if name not in BUGS:
            raise argparse.ArgumentTypeError(f"unknown bug '{name}' (the bugs are {', '.join(BUGS)})")
    return text


def jws_payload(jws):
    """The JSON payload of a compact JWS, decoded without checking its signature."""
    payload = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class Entitlements:
    """The backend's state: per originalTransactionId, the newest notification applied and the access it gives."""

    def __init__(self, bug=None, refuse=None, clock=False, keep_access=0, state_file=None):
        self.bugs = set(bug.split(",")) if bug else set()
        self.refuse = refuse
        self.clock = clock
        self.keep_access = keep_access
        self.state_file = state_file
        self.lock = threading.Lock()
        self.seen = set()  # notificationUUIDs already handled
        self.records = {}  # originalTransactionId -> {"signedDate", "active", "productId"}
        self.dates = {}  # --clock: originalTransactionId -> {"expires", "grace", "revoked", "subscription"}
        if state_file and os.path.exists(state_file):
            with open(state_file) as f:
                saved = json.load(f)
            self.seen = set(saved["seen"])
            self.records = saved["records"]
            self.dates = saved["dates"]

    def save(self):
        """--state: the whole state written atomically (called with the lock held)."""
        if not self.state_file:
            return
        temporary = self.state_file + ".tmp"
        with open(temporary, "w") as f:
            json.dump({"seen": sorted(self.seen), "records": self.records, "dates": self.dates}, f)
        os.replace(temporary, self.state_file)

    def has(self, bug):
        return bug in self.bugs

    def receive(self, body):
        notification = jws_payload(json.loads(body)["signedPayload"])
        if self.refuse and notification["notificationType"] == self.refuse:
            raise Refused(f"{self.refuse} is not handled")
        data = notification.get("data") or {}
        if "signedTransactionInfo" not in data:
            return  # a test notification, a summary: nothing to grant
        transaction = jws_payload(data["signedTransactionInfo"])
        renewal = jws_payload(data["signedRenewalInfo"]) if "signedRenewalInfo" in data else {}
        kind, subtype = notification["notificationType"], notification.get("subtype")
        if transaction.get("type") == "Auto-Renewable Subscription":
            active = data.get("status") in (1, 4)
        elif transaction.get("type") == "Non-Consumable":
            active = "revocationDate" not in transaction
        else:
            return  # consumables and non-renewing subscriptions grant nothing lasting here
        if self.has("fail-ends-access") and kind == "DID_FAIL_TO_RENEW":
            active = False
        if self.has("ignore-revoke") and kind == "REVOKE":
            return
        if self.has("past-refund-ends-access") and kind == "REFUND":
            active = False
        if self.has("no-billing-recovery") and kind == "DID_RENEW" and subtype == "BILLING_RECOVERY":
            return
        key = transaction["originalTransactionId"]
        with self.lock:
            if notification["notificationUUID"] in self.seen:
                return  # a duplicate
            self.seen.add(notification["notificationUUID"])
            old = self.records.get(key)
            if old is not None and notification["signedDate"] < old["signedDate"] and not self.has("older-overwrites"):
                self.save()
                return  # older than what we know: a late retry
            product = renewal.get("productId") or transaction["productId"]
            self.records[key] = {"signedDate": notification["signedDate"], "active": active, "productId": product}
            if self.clock:
                self.note_dates(key, data, transaction, renewal)
            self.save()

    def note_dates(self, key, data, transaction, renewal):
        """--clock: the dates the answer is computed from (called with the lock held, for the newest notification):
        the latest expiresDate of any transaction seen (a refund of a past one does not shorten it), the grace
        period's end from the renewal info, and whether the status says revoked (5) or expired (2) for good."""
        old = self.dates.get(key, {})
        subscription = transaction.get("type") == "Auto-Renewable Subscription"
        expires = max(transaction.get("expiresDate") or 0, old.get("expires") or 0)
        status = data.get("status")
        self.dates[key] = {
            "expires": expires,
            "grace": renewal.get("gracePeriodExpiresDate") if status == 4 else None,
            "revoked": status == 5 if subscription else "revocationDate" in transaction,
            "subscription": subscription,
        }

    def answer(self, original_transaction_id, now=None):
        with self.lock:
            record = self.records.get(original_transaction_id)
            dates = self.dates.get(original_transaction_id)
        if record is None:
            return None
        if self.clock:
            if now is None:
                raise ValueError("--clock needs the time of the query: ?now=MS or the X-Simctl-Now header")
            if dates["subscription"]:
                until = max(dates["expires"], dates["grace"] or 0) + self.keep_access
                active = not dates["revoked"] and now < until
            else:
                active = not dates["revoked"]
            return {"active": active, "productId": record["productId"]}
        return {"active": record["active"], "productId": record["productId"]}


class Refused(Exception):
    """--refuse: a notification kind this backend answers with 500."""


def handler(state, on_notification=None):
    """The HTTP handler class over `state`; `on_notification(body)` runs before each notification is applied."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # the answer's head and body go out at once, not 40 ms apart

        def log_message(self, *args):
            pass

        def send(self, status, value=None):
            body = json.dumps(value).encode() if value is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                if on_notification:
                    on_notification(body)
                state.receive(body)
            except Refused as error:
                self.send(500, {"error": str(error)})
                return
            except Exception as error:  # a body we cannot read: the App Store retries on 5xx
                self.send(500, {"error": str(error)})
                return
            self.send(200, {})

        def do_GET(self):
            prefix = "/entitlements/"
            if not self.path.startswith(prefix):
                self.send(404, {"error": "not found"})
                return
            path, _, query = self.path.partition("?")
            now = parse_qs(query).get("now", [self.headers.get("X-Simctl-Now")])[0]
            try:
                answer = state.answer(path[len(prefix):], int(now) if now is not None else None)
            except ValueError as error:
                self.send(400, {"error": str(error)})
                return
            self.send(404 if answer is None else 200, answer if answer is not None else {"error": "unknown"})

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True


class TLSServer(Server):
    """HTTPS: each connection's TLS handshake is made in its own thread, so a slow or refusing client holds up no
    other."""

    def __init__(self, address, handler_class, cert, key):
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.minimum_version = ssl.TLSVersion.TLSv1_2
        self.context.load_cert_chain(cert, key)
        super().__init__(address, handler_class)

    def finish_request(self, request, client_address):
        connection = self.context.wrap_socket(request, server_side=True)
        try:
            super().finish_request(connection, client_address)
        finally:
            connection.close()

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ssl.SSLError, ConnectionError)):
            super().handle_error(request, client_address)  # a refused handshake is the client's choice: quiet


def serve(state, port, on_notification=None, tls=None, http_port=0):
    """Serves `state` on `port`: HTTP, or with `tls` (cert, key) HTTPS there and HTTP on `http_port` too."""
    if tls is None:
        server = Server(("127.0.0.1", port), handler(state, on_notification))
        print(f"listening on {server.server_address[1]}", flush=True)
    else:
        server = TLSServer(("127.0.0.1", port), handler(state, on_notification), *tls)
        plain = Server(("127.0.0.1", http_port), handler(state, on_notification))
        threading.Thread(target=plain.serve_forever, daemon=True).start()
        print(f"listening on {server.server_address[1]} (https)", flush=True)
        print(f"listening on {plain.server_address[1]} (http)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--bug", type=bugs, help="one bug, or several separated by commas")
    parser.add_argument("--refuse", metavar="TYPE", help="answer 500 to notifications of this notificationType")
    parser.add_argument("--clock", action="store_true", help="decide access from stored dates and the query's now")
    parser.add_argument("--keep-access", type=int, default=0, metavar="MS", help="with --clock: a tolerance")
    parser.add_argument("--state", metavar="FILE", help="keep the state in FILE (persistent)")
    parser.add_argument("--tls-cert", help="PEM certificate (chain): serve HTTPS on --port")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    parser.add_argument("--http-port", type=int, default=0, help="with --tls-cert: the plain HTTP port as well")
    arguments = parser.parse_args()
    if (arguments.tls_cert is None) != (arguments.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    tls = (arguments.tls_cert, arguments.tls_key) if arguments.tls_cert else None
    if arguments.keep_access and not arguments.clock:
        parser.error("--keep-access goes with --clock")
    state = Entitlements(arguments.bug, arguments.refuse, arguments.clock, arguments.keep_access, arguments.state)
    serve(state, arguments.port, tls=tls, http_port=arguments.http_port)


if __name__ == "__main__":
    sys.exit(main())

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
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BUGS = ["fail-ends-access", "ignore-revoke", "older-overwrites", "past-refund-ends-access", "no-billing-recovery"]


def jws_payload(jws):
    """The JSON payload of a compact JWS, decoded without checking its signature."""
    payload = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class Entitlements:
    """The backend's state: per originalTransactionId, the newest notification applied and the access it gives."""

    def __init__(self, bug=None):
        self.bug = bug
        self.lock = threading.Lock()
        self.seen = set()  # notificationUUIDs already handled
        self.records = {}  # originalTransactionId -> {"signedDate", "active", "productId"}

    def receive(self, body):
        notification = jws_payload(json.loads(body)["signedPayload"])
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
        if self.bug == "fail-ends-access" and kind == "DID_FAIL_TO_RENEW":
            active = False
        if self.bug == "ignore-revoke" and kind == "REVOKE":
            return
        if self.bug == "past-refund-ends-access" and kind == "REFUND":
            active = False
        if self.bug == "no-billing-recovery" and kind == "DID_RENEW" and subtype == "BILLING_RECOVERY":
            return
        key = transaction["originalTransactionId"]
        with self.lock:
            if notification["notificationUUID"] in self.seen:
                return  # a duplicate
            self.seen.add(notification["notificationUUID"])
            old = self.records.get(key)
            if old is not None and notification["signedDate"] < old["signedDate"] and self.bug != "older-overwrites":
                return  # older than what we know: a late retry
            product = renewal.get("productId") or transaction["productId"]
            self.records[key] = {"signedDate": notification["signedDate"], "active": active, "productId": product}

    def answer(self, original_transaction_id):
        with self.lock:
            record = self.records.get(original_transaction_id)
        if record is None:
            return None
        return {"active": record["active"], "productId": record["productId"]}


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
            except Exception as error:  # a body we cannot read: the App Store retries on 5xx
                self.send(500, {"error": str(error)})
                return
            self.send(200, {})

        def do_GET(self):
            prefix = "/entitlements/"
            if not self.path.startswith(prefix):
                self.send(404, {"error": "not found"})
                return
            answer = state.answer(self.path[len(prefix):])
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
    parser.add_argument("--bug", choices=BUGS)
    parser.add_argument("--tls-cert", help="PEM certificate (chain): serve HTTPS on --port")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    parser.add_argument("--http-port", type=int, default=0, help="with --tls-cert: the plain HTTP port as well")
    arguments = parser.parse_args()
    if (arguments.tls_cert is None) != (arguments.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    tls = (arguments.tls_cert, arguments.tls_key) if arguments.tls_cert else None
    serve(Entitlements(arguments.bug), arguments.port, tls=tls, http_port=arguments.http_port)


if __name__ == "__main__":
    sys.exit(main())

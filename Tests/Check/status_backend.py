#!/usr/bin/env python3
"""A reference backend for `simctl check --port` (docs/check.md) that asks the App Store Server API.

On each notification it reads only which transaction it is about, then calls Get All Subscription Statuses (for a
subscription or a family share) or Get Transaction Info (for a non-consumable) on the App Store Server API that
`simctl check --port P` serves for the running case, with Apple's official App Store Server Library
(AppStoreServerAPIClient, from Tests/Conformance/.venv made by Tests/Conformance/setup.sh), and decides access from
that answer, not from the notification payload: a subscription gives access while its status is 1 (active) or 4
(billing grace period), to the product of its renewal info; a non-consumable unless its transaction is revoked.
So duplicates and late, older notifications need no special handling: every answer is the store's current truth.
The signed fields are decoded without verifying their signatures (a real backend verifies them with the library's
SignedDataVerifier); the API token is signed with a throwaway ES256 key whose public half it writes to
--public-key-out, for `simctl check --api-key-pem`.

It answers the check's entitlement query on GET /entitlements/{originalTransactionId} like backend.py.

Usage: status_backend.py --api URL --public-key-out FILE [--port N]; prints "listening on PORT" once it listens.
"""

import argparse
import json
import sys
import threading
from pathlib import Path

from appstoreserverlibrary.api_client import AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from backend import jws_payload, serve  # noqa: E402

BUNDLE_ID = "com.example.app"  # Tests/Check/header.yaml
ISSUER = "57246542-96fe-1a63-e053-0824d011072a"


class StatusEntitlements:
    """Per originalTransactionId, the access the API's last answer gave."""

    def __init__(self, client):
        self.client = client
        self.lock = threading.Lock()
        self.records = {}  # originalTransactionId -> {"active", "productId"}

    def receive(self, body):
        notification = jws_payload(json.loads(body)["signedPayload"])
        data = notification.get("data") or {}
        if "signedTransactionInfo" not in data:
            return
        transaction = jws_payload(data["signedTransactionInfo"])  # only to know which transaction to ask about
        with self.lock:
            if transaction.get("type") == "Auto-Renewable Subscription":
                self.ask_statuses(transaction["transactionId"])
            elif transaction.get("type") == "Non-Consumable":
                self.ask_transaction(transaction["transactionId"])

    def ask_statuses(self, transaction_id):
        response = self.client.get_all_subscription_statuses(transaction_id)
        for group in response.data or []:
            for last in group.lastTransactions or []:
                info = jws_payload(last.signedTransactionInfo)
                renewal = jws_payload(last.signedRenewalInfo) if last.signedRenewalInfo else {}
                self.records[last.originalTransactionId] = {
                    "active": last.rawStatus in (1, 4),
                    "productId": renewal.get("productId") or info["productId"],
                }

    def ask_transaction(self, transaction_id):
        response = self.client.get_transaction_info(transaction_id)
        info = jws_payload(response.signedTransactionInfo)
        self.records[info["originalTransactionId"]] = {
            "active": "revocationDate" not in info, "productId": info["productId"]}

    def answer(self, original_transaction_id, now=None):
        with self.lock:
            return self.records.get(original_transaction_id)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api", required=True, help="the URL simctl check --port serves, such as http://127.0.0.1:8081")
    parser.add_argument("--public-key-out", required=True)
    arguments = parser.parse_args()
    key = ec.generate_private_key(ec.SECP256R1())
    Path(arguments.public_key_out).write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    client = AppStoreServerAPIClient(private_pem, "SIMCTLKEY1", ISSUER, BUNDLE_ID, Environment.PRODUCTION)
    client._base_url = arguments.api.rstrip("/")  # Apple's client builds every URL as base URL + Apple's path.
    serve(StatusEntitlements(client), arguments.port)


if __name__ == "__main__":
    sys.exit(main())

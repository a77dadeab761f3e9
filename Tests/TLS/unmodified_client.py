#!/usr/bin/env python3
"""Apple's App Store Server API client, unmodified, in Environment.LOCAL_TESTING, against `simctl serve` behind a
TLS terminator (docs/server.md, "Unmodified clients over TLS").

    unmodified_client.py SERVE_PORT

Run inside the private namespaces Tests/TLS/unmodified_client_check.sh makes: `local-testing-base-url` resolves to
127.0.0.1 through the bind-mounted hosts file, stunnel answers on 127.0.0.1:443 with the certificate of
`simctl certs tls`, and REQUESTS_CA_BUNDLE names that CA. The script drives the store on the plain control port
(SERVE_PORT: advance the clock past a purchase), then calls Get All Subscription Statuses through Apple's client,
whose base URL is the library's own `https://local-testing-base-url` (checked, not replaced), and decodes the signed
transaction with Apple's SignedDataVerifier. It also checks that the TLS connection is refused without the CA (the
certificate really is checked). Prints one line per check; exits 1 on any failure.
"""
import json
import os
import sys
import urllib.request

import certifi
import requests
from appstoreserverlibrary.api_client import AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

BUNDLE_ID = "com.example.nightsky"
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def control(port, method, path, body=None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method,
        data=None if body is None else json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def main(port):
    control(port, "POST", "/simctl/v1/advance", {"by": "1d"})
    state = control(port, "GET", "/simctl/v1/state")
    original = state["customers"][0]["subscriptions"][0]["originalTransactionId"]
    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    client = AppStoreServerAPIClient(key, "TLSCHECK01", "57246542-96fe-1a63-e053-0824d011072a", BUNDLE_ID,
                                     Environment.LOCAL_TESTING)
    # Unmodified: the library's own base URL for LOCAL_TESTING, not one given to it.
    check(client._base_url == "https://local-testing-base-url", f"the client's base URL is {client._base_url}")
    check(os.environ.get("REQUESTS_CA_BUNDLE", "").endswith("ca.pem"), "REQUESTS_CA_BUNDLE names the CA")
    response = client.get_all_subscription_statuses(original, [Status.ACTIVE])
    check(response.bundleId == BUNDLE_ID, f"Get All Subscription Statuses answered for {response.bundleId}")
    groups = response.data or []
    check(len(groups) == 1 and groups[0].lastTransactions, f"{len(groups)} subscription group(s) with transactions")
    verifier = SignedDataVerifier([], False, Environment.LOCAL_TESTING, BUNDLE_ID)
    item = groups[0].lastTransactions[0]
    transaction = verifier.verify_and_decode_signed_transaction(item.signedTransactionInfo)
    check(transaction.originalTransactionId == original and item.status == Status.ACTIVE,
          f"transaction {transaction.originalTransactionId}, status {item.status}")
    # Without the CA the same URL is refused: the terminator's certificate is really verified.
    try:
        requests.get("https://local-testing-base-url/simctl/v1/state", verify=certifi.where(), timeout=10)
        check(False, "a client that does not trust the CA is refused")
    except requests.exceptions.SSLError:
        check(True, "a client that does not trust the CA is refused (SSLError)")
    print(f"unmodified client: {'FAILED' if failures else 'passed'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))

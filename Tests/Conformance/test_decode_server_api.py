#!/usr/bin/env python3
"""Self-test of decode_server_api.py: valid responses pass, broken ones are caught."""
import sys

import decode_server_api as conformance
from test_decode_notifications import RENEWAL, TRANSACTION, jws


def history(**changes):
    body = {"revision": "A1.1", "hasMore": False, "bundleId": "com.example", "appAppleId": 1,
            "environment": "LocalTesting", "signedTransactions": [jws(TRANSACTION)]}
    body.update(changes)
    return body


def statuses(status=1):
    return {"environment": "LocalTesting", "bundleId": "com.example", "appAppleId": 1, "data": [
        {"subscriptionGroupIdentifier": "21000001", "lastTransactions": [
            {"status": status, "originalTransactionId": "2000000000000001",
             "signedTransactionInfo": jws(TRANSACTION), "signedRenewalInfo": jws(RENEWAL)}]}]}


def problems(model, body):
    try:
        return conformance.check_response(model, body)
    except Exception as error:
        return [str(error)]


def main():
    without_app_transaction_id = {k: v for k, v in TRANSACTION.items() if k != "appTransactionId"}
    cases = [
        ("valid history passes", "HistoryResponse", history(), False),
        ("a field Apple's model lacks is caught", "HistoryResponse", history(nextRevision="x"), True),
        ("revision as a number is caught", "HistoryResponse", history(revision=5), True),
        ("hasMore as text is caught", "HistoryResponse", history(hasMore="false"), True),
        ("unknown environment is caught", "HistoryResponse", history(environment="Staging"), True),
        ("a transaction without appTransactionId is caught", "HistoryResponse",
         history(signedTransactions=[jws(without_app_transaction_id)]), True),
        ("valid statuses pass", "StatusResponse", statuses(), False),
        ("unknown status is caught", "StatusResponse", statuses(status=9), True),
        ("valid transaction info passes", "TransactionInfoResponse", {"signedTransactionInfo": jws(TRANSACTION)},
         False),
        ("valid refund history passes", "RefundHistoryResponse",
         {"signedTransactions": [jws(TRANSACTION)], "revision": "A1.1", "hasMore": True}, False),
        ("refund history with bundleId is caught", "RefundHistoryResponse",
         {"signedTransactions": [], "revision": "A1.1", "hasMore": True, "bundleId": "com.example"}, True),
        ("valid error passes", "ErrorPayload", {"errorCode": 4000005, "errorMessage": "Invalid request revision."},
         False),
        ("unknown error code is caught", "ErrorPayload", {"errorCode": 4009999, "errorMessage": "x"}, True),
    ]
    failures = []
    for name, model, body, should_fail in cases:
        found = problems(model, body)
        if bool(found) != should_fail:
            failures.append(f"{name}: expected {'a problem' if should_fail else 'no problem'}, found {found}")
    for failure in failures:
        print(failure)
    print(f"server API self-test: {len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Parses the simulator's App Store Server API responses with the models of Apple's App Store Server Library.

Input: files or folders; a folder is searched for files named <case>.<Model>.json, where Model is one of
HistoryResponse, StatusResponse, TransactionInfoResponse, RefundHistoryResponse (Apple's response models) or
ErrorPayload (an error body). Each response is structured with the library's own cattrs converter (as its API client
does with a real response), then unstructured again: the result must equal the input, so every field name, JSON type
and enum value is one the library knows and nothing is dropped. Every signed transaction and renewal info inside is
verified and decoded with SignedDataVerifier (LocalTesting/Xcode: no signature check) and checked like a
notification's (decode_notifications.check_raw, required fields, unknown enum values). An error body must be exactly
{"errorCode": <a code in the library's APIError>, "errorMessage": <text>}.
Prints one line per failure and ends with "server API conformance: N passed, M failed".
"""
import json
import sys
from pathlib import Path

from appstoreserverlibrary.api_client import APIError
from appstoreserverlibrary.models.HistoryResponse import HistoryResponse
from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
from appstoreserverlibrary.models.RefundHistoryResponse import RefundHistoryResponse
from appstoreserverlibrary.models.StatusResponse import StatusResponse
from appstoreserverlibrary.models.TransactionInfoResponse import TransactionInfoResponse
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

import decode_notifications as notifications

MODELS = {
    "HistoryResponse": HistoryResponse,
    "StatusResponse": StatusResponse,
    "TransactionInfoResponse": TransactionInfoResponse,
    "RefundHistoryResponse": RefundHistoryResponse,
}


def check_signed(verifier, jws, kind, path, problems):
    raw = notifications.jws_payload(jws)
    notifications.check_raw(raw, path, problems)
    if kind == "transaction":
        decoded = verifier.verify_and_decode_signed_transaction(jws)
        required = notifications.REQUIRED_TRANSACTION
    else:
        decoded = verifier.verify_and_decode_renewal_info(jws)
        required = notifications.REQUIRED_RENEWAL
    notifications.unknown_enums(decoded, path, problems)
    # A 12-month commitment's fields (Appendix E.2), held by Apple's models as in the notifications' payloads.
    notifications.check_commitment(decoded, raw, path, problems)
    for key in required:
        if key not in raw:
            problems.append(f"{path}.{key} is missing")
    return raw


def verifier_for(signed, bundle_id, app_apple_id):
    """A verifier for the environment the first signed payload names (the response may not carry one)."""
    environment_name = notifications.jws_payload(signed).get("environment") if signed else "LocalTesting"
    environment = notifications.ENVIRONMENTS.get(environment_name)
    if environment is None:
        raise ValueError(f"environment must be LocalTesting or Xcode, found {environment_name!r}")
    return SignedDataVerifier([], False, environment, bundle_id, app_apple_id)


def check_response(model_name, body):
    problems = []
    if model_name == "ErrorPayload":
        if set(body) != {"errorCode", "errorMessage"}:
            problems.append(f"an error body has exactly errorCode and errorMessage, found {sorted(body)}")
        elif body["errorCode"] not in set(APIError) or not isinstance(body["errorMessage"], str):
            problems.append(f"errorCode {body['errorCode']!r} is not one of the library's APIError codes")
        return problems
    model = MODELS.get(model_name)
    if model is None:
        return [f"unknown model {model_name!r}; expected one of {sorted(MODELS)} or ErrorPayload"]
    converter = _get_cattrs_converter(model)
    parsed = converter.structure(body, model)
    notifications.unknown_enums(parsed, model_name, problems)
    again = converter.unstructure(parsed)
    if again != body:
        extra = sorted(set(body) - set(again))
        problems.append(f"the library's {model_name} does not read this back unchanged (fields it drops: {extra})")
    notifications.check_raw(body, model_name, problems)
    # A customer's signed data carries the app's bundle id; the status and history responses name it too.
    transactions, renewals = [], []
    if model_name in ("HistoryResponse", "RefundHistoryResponse"):
        transactions = list(body.get("signedTransactions", []))
    elif model_name == "TransactionInfoResponse":
        transactions = [body.get("signedTransactionInfo")]
    elif model_name == "StatusResponse":
        for group_index, group in enumerate(parsed.data or []):
            notifications.unknown_enums(group, f"data[{group_index}]", problems)
            for item in group.lastTransactions or []:
                notifications.unknown_enums(item, f"data[{group_index}].lastTransactions", problems)
                transactions.append(item.signedTransactionInfo)
                renewals.append(item.signedRenewalInfo)
    signed = [jws for jws in transactions + renewals if jws]
    first = notifications.jws_payload(signed[0]) if signed else {}
    verifier = verifier_for(signed[0] if signed else None, body.get("bundleId", first.get("bundleId")),
                            body.get("appAppleId"))
    for index, jws in enumerate(transactions):
        check_signed(verifier, jws, "transaction", f"{model_name}.transaction[{index}]", problems)
    for index, jws in enumerate(renewals):
        check_signed(verifier, jws, "renewal", f"{model_name}.renewal[{index}]", problems)
    return problems


def inputs(arguments):
    for argument in arguments:
        path = Path(argument)
        files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
        for file in files:
            parts = file.name.split(".")
            if len(parts) == 3:
                yield file, parts[1]


def main(arguments):
    passed = failed = 0
    for file, model_name in inputs(arguments):
        try:
            problems = check_response(model_name, json.loads(file.read_text(encoding="utf-8")))
        except Exception as error:  # the library's own exceptions included
            problems = [f"{type(error).__name__}: {error}"]
        if problems:
            failed += 1
            for problem in problems:
                print(f"{file}: {problem}")
        else:
            passed += 1
    print(f"server API conformance: {passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Verifies simctl's ES256 signatures with Apple's official App Store Server Library, given simctl's root.

Two modes:

  verify_signatures.py chain DIR
      DIR is what `simctl certs export` wrote. Checks the chain with an implementation other than Apple's and
      OpenSSL's command line: Python `cryptography`'s X.509 path validation (root trusted, intermediate
      untrusted, at a time inside the validity), and that root.der/leaf.der equal their PEM twins.

  verify_signatures.py notifications ROOT_DER ENVIRONMENT BUNDLE_ID APP_APPLE_ID|- FILE...
      Each FILE is a .jsonl of POST bodies ({"signedPayload": JWS}) or a fixture folder (NNNN.json files).
      Every notification, and every nested JWS (signedTransactionInfo, signedRenewalInfo, and RESCIND_CONSENT's
      appData.signedAppTransactionInfo), is verified with
      SignedDataVerifier([root], enable_online_checks=False, ENVIRONMENT, BUNDLE_ID, APP_APPLE_ID).

  verify_signatures.py fixtures DIR
      DIR is what `simctl certs negative-fixtures` wrote. Builds the verifier its manifest.json describes and
      checks that each fixture ends with the VerificationStatus the manifest expects (OK: verified, nested JWS
      included).

Prints one line per failure and ends with "signatures: N passed, M failed"; exits 1 on any failure.
"""
import datetime
import json
import re
import sys
from pathlib import Path

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from cryptography.x509.verification import Criticality, ExtensionPolicy, PolicyBuilder, Store


def bodies(paths):
    for argument in paths:
        path = Path(argument)
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.suffix == ".jsonl" and not file.name.endswith(".decoded.jsonl"):
                for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                    if line.strip():
                        yield f"{file}:{number}", line
            elif file.suffix == ".json" and re.match(r"^[0-9]+\.json$", file.name):
                yield f"{file}:1", file.read_text(encoding="utf-8")


def verify_notification(verifier, body_text):
    """Verifies the notification and its nested JWS; raises VerificationException on the first failure."""
    signed_payload = json.loads(body_text)["signedPayload"]
    notification = verifier.verify_and_decode_notification(signed_payload)
    data = notification.data
    if data is not None and data.signedTransactionInfo is not None:
        verifier.verify_and_decode_signed_transaction(data.signedTransactionInfo)
    if data is not None and data.signedRenewalInfo is not None:
        verifier.verify_and_decode_renewal_info(data.signedRenewalInfo)
    app_data = notification.appData  # RESCIND_CONSENT: appData instead of data
    if app_data is not None and app_data.signedAppTransactionInfo is not None:
        verifier.verify_and_decode_app_transaction(app_data.signedAppTransactionInfo)
    return notification


def status_of(verifier, body_text):
    try:
        verify_notification(verifier, body_text)
        return "OK"
    except VerificationException as error:
        return error.status.name


def check_chain(directory):
    folder = Path(directory)
    problems = []
    certificates = {}
    for role in ["root", "intermediate", "leaf"]:
        pem = x509.load_pem_x509_certificate((folder / f"{role}.pem").read_bytes())
        der = (folder / f"{role}.der").read_bytes()
        if pem.public_bytes(Encoding.DER) != der:
            problems.append(f"{role}.der differs from {role}.pem")
        certificates[role] = pem
    # The same instant Apple's verifier uses for a payload: inside the validity of every certificate.
    when = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
    # The Web PKI rules for the CAs; for the leaf the same, except that a subjectAltName is optional (App Store
    # signing certificates name no host or address).
    ee_policy = ExtensionPolicy.webpki_defaults_ee().may_be_present(
        x509.SubjectAlternativeName, Criticality.AGNOSTIC, None)
    verifier = (
        PolicyBuilder().store(Store([certificates["root"]])).time(when)
        .extension_policies(ca_policy=ExtensionPolicy.webpki_defaults_ca(), ee_policy=ee_policy)
        .build_client_verifier())
    try:
        chain = verifier.verify(certificates["leaf"], [certificates["intermediate"]]).chain
        if [c.subject for c in chain] != [certificates[r].subject for r in ["leaf", "intermediate", "root"]]:
            problems.append("cryptography built an unexpected path")
    except Exception as error:  # cryptography's VerificationError and parse errors
        problems.append(f"cryptography rejects the chain: {type(error).__name__}: {error}")
    for role, oid in [("leaf", "1.2.840.113635.100.6.11.1"), ("intermediate", "1.2.840.113635.100.6.2.1")]:
        try:
            certificates[role].extensions.get_extension_for_oid(x509.ObjectIdentifier(oid))
        except x509.ExtensionNotFound:
            problems.append(f"the {role} lacks Apple's marker extension {oid}")
    return problems


def main(arguments):
    passed = failed = 0

    def report(where, problems):
        nonlocal passed, failed
        if problems:
            failed += 1
            for problem in problems:
                print(f"{where}: {problem}")
        else:
            passed += 1

    if len(arguments) == 2 and arguments[0] == "chain":
        report(arguments[1], check_chain(arguments[1]))
    elif len(arguments) >= 6 and arguments[0] == "notifications":
        root = Path(arguments[1]).read_bytes()
        environment = Environment(arguments[2])
        app_apple_id = None if arguments[4] == "-" else int(arguments[4])
        verifier = SignedDataVerifier([root], False, environment, arguments[3], app_apple_id)
        for where, body in bodies(arguments[5:]):
            status = status_of(verifier, body)
            report(where, [] if status == "OK" else [f"rejected: {status}"])
    elif len(arguments) == 2 and arguments[0] == "fixtures":
        folder = Path(arguments[1])
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        settings = manifest["verifier"]
        verifier = SignedDataVerifier(
            [(folder / settings["rootCertificate"]).read_bytes()], settings["enableOnlineChecks"],
            Environment(settings["environment"]), settings["bundleId"], settings.get("appAppleId"))
        for fixture in manifest["fixtures"]:
            status = status_of(verifier, (folder / fixture["file"]).read_text(encoding="utf-8"))
            expected = fixture["expectedStatus"]
            report(fixture["file"], [] if status == expected else [f"expected {expected}, Apple's library says {status}"])
    else:
        print(__doc__)
        return 64
    print(f"signatures: {passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Online certificate checks (OCSP) against `simctl certs ocsp` (docs/signing.md, "Online certificate checks (OCSP)").

  ocsp_check.py SIMCTL [SCENARIO]

1. `simctl certs export --ocsp-url URL` writes the opt-in chain: its intermediate and leaf name URL in an Authority
   Information Access extension, its root and keys are the default chain's, and the default export has no such
   extension.
2. `simctl certs ocsp --ocsp-url URL` answers: Python `cryptography`'s `x509.ocsp` builds the requests (SHA-1 and
   SHA-256 CertIDs, with and without a nonce), loads the answers and checks status, CertID, responder key hash,
   signature by the issuer's key, thisUpdate/nextUpdate around the wall clock and the echoed nonce; garbage gets
   HTTP 400 with malformedRequest; `openssl ocsp` asks too when it is installed.
3. Apple's SignedDataVerifier(root, enable_online_checks=True, SANDBOX and PRODUCTION) verifies every notification
   of SCENARIO (and its nested JWS) signed with that chain (`simctl run --signing-chain`); the default chain,
   which names no responder, fails online checks.
4. After `POST /simctl/ocsp/revoke/leaf`, a new verifier rejects them (VERIFICATION_FAILURE) while one that verified
   before keeps its 15-minute cache; a responder started with `--revoke intermediate` makes them fail too; with no
   responder listening, the verifier answers RETRYABLE_VERIFICATION_FAILURE.

Every child process has a timeout and is killed (SIGKILL) if it does not stop. Prints one line per check and ends
with "ocsp: N passed, M failed"; exits 1 on any failure.
"""
import datetime
import hashlib
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import (
    SignedDataVerifier,
    VerificationException,
    VerificationStatus,
)
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ec import ECDSA
from cryptography.x509 import ocsp

passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok: {name}")
    else:
        failed += 1
        print(f"FAILED: {name}{': ' + str(detail) if detail else ''}")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(arguments, timeout=300):
    return subprocess.run(arguments, capture_output=True, text=True, timeout=timeout, check=True)


class Responder:
    """`simctl certs ocsp ...` in the background; started when its URL line is printed."""

    def __init__(self, simctl, url, *extra):
        self.process = subprocess.Popen(
            [simctl, "certs", "ocsp", "--ocsp-url", url, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        line = self.process.stdout.readline().decode() if ready else ""
        if line.strip() != url:
            self.stop()
            raise SystemExit(f"simctl certs ocsp did not start: {line!r} {self.process.stderr.read()[:500]!r}")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        return self.process.returncode


def post(url, body, content_type="application/ocsp-request"):
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def load(directory):
    return {
        role: x509.load_der_x509_certificate((directory / f"{role}.der").read_bytes())
        for role in ("root", "intermediate", "leaf")
    }


def aia_urls(certificate):
    try:
        access = certificate.extensions.get_extension_for_class(x509.AuthorityInformationAccess)
    except x509.ExtensionNotFound:
        return []
    return [d.access_location.value for d in access.value
            if d.access_method == x509.oid.AuthorityInformationAccessOID.OCSP]


def key_hash(certificate):
    point = certificate.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return hashlib.sha1(point).digest()


def ask(url, certificate, issuer, algorithm, nonce):
    builder = ocsp.OCSPRequestBuilder().add_certificate(certificate, issuer, algorithm)
    if nonce is not None:
        builder = builder.add_extension(x509.OCSPNonce(nonce), critical=False)
    request = builder.build()
    status, headers, body = post(url, request.public_bytes(serialization.Encoding.DER))
    return request, status, headers, body


def check_answer(label, url, certificate, issuer, expected_status):
    """Asks with each hash and with and without a nonce; checks the answer as a verifier would."""
    for algorithm in (hashes.SHA1(), hashes.SHA256()):
        for nonce in (None, os.urandom(16)):
            name = f"{label} {algorithm.name} {'nonce' if nonce else 'no nonce'}"
            request, status, headers, body = ask(url, certificate, issuer, algorithm, nonce)
            check(f"{name}: HTTP 200 application/ocsp-response",
                  status == 200 and headers.get("Content-Type") == "application/ocsp-response", (status, headers))
            response = ocsp.load_der_ocsp_response(body)
            check(f"{name}: successful", response.response_status == ocsp.OCSPResponseStatus.SUCCESSFUL)
            if response.response_status != ocsp.OCSPResponseStatus.SUCCESSFUL:
                continue
            check(f"{name}: responder key hash is the issuer's", response.responder_key_hash == key_hash(issuer))
            try:
                issuer.public_key().verify(response.signature, response.tbs_response_bytes,
                                           ECDSA(response.signature_hash_algorithm))
                check(f"{name}: signed by the issuer", True)
            except Exception as error:  # noqa: BLE001
                check(f"{name}: signed by the issuer", False, error)
            singles = list(response.responses)
            single = singles[0]
            check(f"{name}: one response for the CertID asked",
                  len(singles) == 1 and single.serial_number == request.serial_number
                  and single.issuer_key_hash == request.issuer_key_hash
                  and single.issuer_name_hash == request.issuer_name_hash
                  and single.hash_algorithm.name == algorithm.name)
            check(f"{name}: status {expected_status.name}", single.certificate_status == expected_status,
                  single.certificate_status)
            now = datetime.datetime.now(datetime.timezone.utc)
            skew = datetime.timedelta(seconds=60)
            check(f"{name}: thisUpdate <= now <= nextUpdate",
                  single.this_update_utc <= now + skew and single.next_update_utc is not None
                  and single.next_update_utc >= now - skew, (single.this_update_utc, single.next_update_utc))
            if expected_status == ocsp.OCSPCertStatus.REVOKED:
                check(f"{name}: revocation time not after now",
                      single.revocation_time_utc is not None and single.revocation_time_utc <= now + skew)
            if nonce is None:
                check(f"{name}: no nonce in the answer", len(response.extensions) == 0)
            else:
                echoed = response.extensions.get_extension_for_class(x509.OCSPNonce).value.nonce
                check(f"{name}: nonce echoed", echoed == nonce)


def notifications(simctl, scenario, environment, chain):
    out = run([simctl, "run", scenario, "--environment", environment, "--signing-chain", str(chain),
               "--format", "jsonl"]).stdout
    return [json.loads(line)["signedPayload"] for line in out.splitlines() if line.strip()]


def verify_all(verifier, payloads):
    """None when every payload (and its nested JWS) verifies, else the first VerificationStatus."""
    try:
        for payload in payloads:
            notification = verifier.verify_and_decode_notification(payload)
            data = notification.data
            if data is not None and data.signedTransactionInfo is not None:
                verifier.verify_and_decode_signed_transaction(data.signedTransactionInfo)
            if data is not None and data.signedRenewalInfo is not None:
                verifier.verify_and_decode_renewal_info(data.signedRenewalInfo)
        return None
    except VerificationException as error:
        return error.status


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    simctl = sys.argv[1]
    scenario = sys.argv[2] if len(sys.argv) == 3 else "Scenarios/cancel-during-grace.yaml"
    text = Path(scenario).read_text(encoding="utf-8")
    bundle = re.search(r"^  bundleId: *(\S+)", text, re.M).group(1)
    apple_id = int(re.search(r"^  appAppleId: *(\d+)", text, re.M).group(1))
    port = free_port()
    url = f"http://127.0.0.1:{port}/ocsp"
    work = Path(tempfile.mkdtemp(prefix="simctl-ocsp-"))
    responder = None
    try:
        # 1. The chains.
        run([simctl, "certs", "export", "--ocsp-url", url, str(work / "chain")])
        run([simctl, "certs", "export", str(work / "default")])
        chain, default = load(work / "chain"), load(work / "default")
        check("the intermediate and the leaf name the responder",
              aia_urls(chain["intermediate"]) == [url] and aia_urls(chain["leaf"]) == [url])
        check("the root names none and is the default root",
              aia_urls(chain["root"]) == [] and (work / "chain/root.der").read_bytes()
              == (work / "default/root.der").read_bytes())
        check("the default chain names no responder", all(aia_urls(c) == [] for c in default.values()))
        check("the leaf key is the default chain's",
              (work / "chain/leaf-key.pem").read_bytes() == (work / "default/leaf-key.pem").read_bytes())
        root_der = (work / "chain/root.der").read_bytes()

        # 2. The responder, asked by cryptography (and openssl).
        responder = Responder(simctl, url)
        check_answer("leaf", url, chain["leaf"], chain["intermediate"], ocsp.OCSPCertStatus.GOOD)
        check_answer("intermediate", url, chain["intermediate"], chain["root"], ocsp.OCSPCertStatus.GOOD)
        status, headers, body = post(url, b"not an OCSP request")
        check("garbage: HTTP 400 with malformedRequest",
              status == 400 and ocsp.load_der_ocsp_response(body).response_status
              == ocsp.OCSPResponseStatus.MALFORMED_REQUEST and "Simctl-OCSP-Error" in headers, (status, headers))
        stranger_dir = work / "stranger"
        run([simctl, "certs", "export", "--ca-seed", "stranger", str(stranger_dir)])
        stranger = load(stranger_dir)
        _, status, _, body = ask(url, stranger["leaf"], stranger["intermediate"], hashes.SHA256(), None)
        check("another CA's certificate: unauthorized",
              status == 200 and ocsp.load_der_ocsp_response(body).response_status
              == ocsp.OCSPResponseStatus.UNAUTHORIZED)
        if shutil.which("openssl"):
            for role, issuer in (("leaf", "intermediate"), ("intermediate", "root")):
                result = subprocess.run(
                    ["openssl", "ocsp", "-issuer", str(work / f"chain/{issuer}.pem"),
                     "-cert", str(work / f"chain/{role}.pem"), "-url", url,
                     "-CAfile", str(work / "chain/root.pem"),
                     "-verify_other", str(work / f"chain/{issuer}.pem")],
                    capture_output=True, text=True, timeout=60)
                output = result.stdout + result.stderr
                check(f"openssl ocsp: {role} good, response verified",
                      result.returncode == 0 and f"{role}.pem: good" in output and "Response verify OK" in output,
                      output.strip())
        else:
            print("openssl is not installed: 'openssl ocsp' skipped")

        # 3. Apple's verifier with online checks.
        environments = {"Sandbox": Environment.SANDBOX, "Production": Environment.PRODUCTION}
        signed = {name: notifications(simctl, scenario, name, work / "chain") for name in environments}
        plain = {name: notifications(simctl, scenario, name, work / "default") for name in environments}
        verifiers = {}
        for name, environment in environments.items():
            verifiers[name] = SignedDataVerifier([root_der], True, environment, bundle, apple_id)
            result = verify_all(verifiers[name], signed[name])
            check(f"{name}: {len(signed[name])} notifications verify with enable_online_checks=True",
                  result is None and len(signed[name]) > 0, result)
            result = verify_all(SignedDataVerifier([root_der], True, environment, bundle, apple_id), plain[name])
            check(f"{name}: the default chain fails online checks (no responder named)",
                  result == VerificationStatus.VERIFICATION_FAILURE, result)

        # 4. Revocation.
        status, _, _ = post(f"http://127.0.0.1:{port}/simctl/ocsp/revoke/leaf", b"", "text/plain")
        check("POST /simctl/ocsp/revoke/leaf", status == 200, status)
        check_answer("revoked leaf", url, chain["leaf"], chain["intermediate"], ocsp.OCSPCertStatus.REVOKED)
        check_answer("intermediate, leaf revoked", url, chain["intermediate"], chain["root"],
                     ocsp.OCSPCertStatus.GOOD)
        for name, environment in environments.items():
            result = verify_all(SignedDataVerifier([root_der], True, environment, bundle, apple_id), signed[name])
            check(f"{name}: leaf revoked: a new verifier rejects them",
                  result == VerificationStatus.VERIFICATION_FAILURE, result)
            result = verify_all(verifiers[name], signed[name][:1])
            check(f"{name}: leaf revoked: the verifier that verified before still passes (its 15-minute cache)",
                  result is None, result)
        check("the responder stops on SIGTERM with exit 0", responder.stop() == 0)
        responder = Responder(simctl, url, "--revoke", "intermediate")
        check_answer("leaf, intermediate revoked", url, chain["leaf"], chain["intermediate"], ocsp.OCSPCertStatus.GOOD)
        check_answer("revoked intermediate", url, chain["intermediate"], chain["root"], ocsp.OCSPCertStatus.REVOKED)
        for name, environment in environments.items():
            result = verify_all(SignedDataVerifier([root_der], True, environment, bundle, apple_id), signed[name])
            check(f"{name}: intermediate revoked: rejected", result == VerificationStatus.VERIFICATION_FAILURE, result)
        responder.stop()
        responder = None
        result = verify_all(
            SignedDataVerifier([root_der], True, Environment.SANDBOX, bundle, apple_id), signed["Sandbox"])
        check("no responder listening: RETRYABLE_VERIFICATION_FAILURE",
              result == VerificationStatus.RETRYABLE_VERIFICATION_FAILURE, result)
    finally:
        if responder is not None:
            responder.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"ocsp: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

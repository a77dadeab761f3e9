#!/usr/bin/env python3
"""The signing options on every command that emits notifications (docs/signing.md, "The signing options").

    signing_options.py SIMCTL

For each chain option, `--ca-seed signing-options-test` and `--signing-chain DIR` (a chain exported with another
seed, standing for a team's own CA), with `--environment Sandbox`:

- `simctl certs export ROOTDIR --environment Sandbox OPTION` writes the root a verifier trusts;
- `simctl run` (jsonl), `simctl serve` (every notification delivered to a receiver here, and the signed fields of
  Get All Subscription Statuses, called with Apple's AppStoreServerAPIClient) and `simctl check` (against a backend
  here that verifies every delivery with SignedDataVerifier before handing it to Tests/Check/backend.py, and answers
  400 to one that does not verify) give payloads that Apple's SignedDataVerifier (Sandbox, online checks off)
  accepts against that root, and that a verifier trusting the default root refuses;
- the same check without the chain option (the default chain) cannot be judged: every delivery is refused (exit 2).

Prints one line per failure and ends with "signing options: N passed, M failed"; exits 1 on any failure.
Needs Tests/Conformance/.venv (Tests/Conformance/setup.sh).
"""
import http.server
import json
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

from appstoreserverlibrary.api_client import AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

ROOT = Path(__file__).resolve().parent.parent.parent
RUN_SCENARIO = ROOT / "Scenarios" / "cancel-during-grace.yaml"
SERVE_SCENARIO = ROOT / "Scenarios" / "family-billing-grace-recovery.yaml"
CHECK_SCENARIO = ROOT / "Tests" / "Check" / "header.yaml"
BACKEND = ROOT / "Tests" / "Check" / "backend.py"
NIGHTSKY = "com.example.nightsky"
CHECK_BUNDLE = "com.example.app"

passed = 0
failures = []


def check(condition, what):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what)
        print(f"FAIL {what}", flush=True)


def simctl(binary, *arguments):
    return subprocess.run([binary, *arguments], capture_output=True, text=True, timeout=600)


def verifier(root_der, bundle):
    return SignedDataVerifier([root_der], False, Environment.SANDBOX, bundle, None)


def verifies(verifier_, body):
    """Whether a POST body's notification, and its transaction and renewal info, verify."""
    try:
        notification = verifier_.verify_and_decode_notification(json.loads(body)["signedPayload"])
        data = notification.data
        if data is not None and data.signedTransactionInfo is not None:
            verifier_.verify_and_decode_signed_transaction(data.signedTransactionInfo)
        if data is not None and data.signedRenewalInfo is not None:
            verifier_.verify_and_decode_renewal_info(data.signedRenewalInfo)
        return True
    except VerificationException:
        return False


def start_http(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def check_run(binary, label, option, root, default_root):
    result = simctl(binary, "run", str(RUN_SCENARIO), "--environment", "Sandbox", *option, "--format", "jsonl")
    check(result.returncode == 0, f"{label} run: exit 0, found {result.returncode}: {result.stderr}")
    lines = result.stdout.splitlines()
    check(len(lines) >= 3, f"{label} run: notifications, found {len(lines)}")
    good = verifier(root, NIGHTSKY)
    for index, line in enumerate(lines):
        check(verifies(good, line), f"{label} run: notification {index + 1} verifies against the option's root")
    check(not verifies(verifier(default_root, NIGHTSKY), lines[0]), f"{label} run: the default root refuses it")


class Receiver(http.server.BaseHTTPRequestHandler):
    bodies = []

    def do_POST(self):
        Receiver.bodies.append(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def control(url, path, body):
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def check_serve(binary, label, option, root, default_root, workspace):
    key = ec.generate_private_key(ec.SECP256R1())
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public_path = workspace / f"api-key-{label}.pub.pem"
    public_path.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    Receiver.bodies = []
    receiver, receiver_url = start_http(Receiver)
    server = subprocess.Popen(
        [binary, "serve", str(SERVE_SCENARIO), "--environment", "Sandbox", *option, "--deliver", receiver_url + "/",
         "--api-key-pem", str(public_path), "--log", str(workspace / f"serve-{label}.log")],
        stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        control(url, "/simctl/v1/advance", {"by": "P2M"})
        with urllib.request.urlopen(url + "/simctl/v1/state", timeout=60) as response:
            state = json.loads(response.read())
        check(state["environment"] == "Sandbox", f"{label} serve: the state says Sandbox, found {state['environment']}")
        good = verifier(root, NIGHTSKY)
        check(len(Receiver.bodies) >= 3, f"{label} serve: notifications delivered, found {len(Receiver.bodies)}")
        for index, body in enumerate(Receiver.bodies):
            check(verifies(good, body), f"{label} serve: delivery {index + 1} verifies against the option's root")
        if Receiver.bodies:
            check(not verifies(verifier(default_root, NIGHTSKY), Receiver.bodies[0]),
                  f"{label} serve: the default root refuses a delivery")
        client = AppStoreServerAPIClient(private_pem, "SIMCTLKEY1", "issuer-1", NIGHTSKY, Environment.SANDBOX)
        client._base_url = url
        subscription = state["customers"][0]["subscriptions"][0]
        statuses = client.get_all_subscription_statuses(subscription["originalTransactionId"])
        answered = 0
        for group in statuses.data:
            for item in group.lastTransactions:
                good.verify_and_decode_signed_transaction(item.signedTransactionInfo)
                good.verify_and_decode_renewal_info(item.signedRenewalInfo)
                answered += 1
        check(answered >= 1, f"{label} serve: Get All Subscription Statuses answers verify, found {answered}")
    except VerificationException as error:
        check(False, f"{label} serve: an API answer does not verify: {error!r}")
    finally:
        server.terminate()
        code = server.wait(timeout=30)
        receiver.shutdown()
    check(code == 0, f"{label} serve: exit 0 after SIGTERM, found {code}")


def verifying_backend(root_der, backend_url):
    """A webhook that verifies each delivery, then hands it to the reference backend; 400 when it does not verify."""

    class Handler(http.server.BaseHTTPRequestHandler):
        verified = 0
        refused = 0

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if not verifies(verifier(root_der, CHECK_BUNDLE), body.decode()):
                Handler.refused += 1
                status = 400
            else:
                Handler.verified += 1
                request = urllib.request.Request(backend_url + "/", data=body, method="POST")
                with urllib.request.urlopen(request, timeout=30) as response:
                    status = response.status
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    return Handler


def check_check(binary, label, option, root, workspace, expect_agree=True):
    backend = subprocess.Popen([sys.executable, str(BACKEND), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        port = backend.stdout.readline().split()[-1]
        backend_url = f"http://127.0.0.1:{port}"
        handler = verifying_backend(root, backend_url)
        webhook, webhook_url = start_http(handler)
        result = simctl(
            binary, "check", str(CHECK_SCENARIO), "--environment", "Sandbox", *option, "--cases", "5",
            "--no-shrink", "--out", str(workspace / f"check-{label}"), "--deliver", webhook_url + "/",
            "--entitlements", backend_url + "/entitlements/{originalTransactionId}")
        webhook.shutdown()
    finally:
        backend.terminate()
        backend.wait(timeout=30)
    if expect_agree:
        check(result.returncode == 0, f"{label} check: exit 0, found {result.returncode}: {result.stdout}"
              f"{result.stderr}")
        check(handler.verified >= 10 and handler.refused == 0,
              f"{label} check: every delivery verifies ({handler.verified} verified, {handler.refused} refused)")
    else:
        check(result.returncode == 2, f"{label} check: exit 2 (cannot be judged), found {result.returncode}")
        check(handler.verified == 0 and handler.refused >= 1,
              f"{label} check: every delivery refused ({handler.verified} verified, {handler.refused} refused)")


def main():
    binary = sys.argv[1]
    workspace = Path(tempfile.mkdtemp())
    exported = simctl(binary, "certs", "export", str(workspace / "default"))
    check(exported.returncode == 0, f"certs export: {exported.stderr}")
    default_root = (workspace / "default" / "root.der").read_bytes()
    # A team's own CA: a chain made elsewhere (here by another seed), passed as a folder.
    own = simctl(binary, "certs", "export", str(workspace / "own"), "--ca-seed", "a team's own CA")
    check(own.returncode == 0, f"certs export --ca-seed: {own.stderr}")
    for label, option in [("ca-seed", ["--ca-seed", "signing-options-test"]),
                          ("signing-chain", ["--signing-chain", str(workspace / "own")])]:
        chain = workspace / f"chain-{label}"
        exported = simctl(binary, "certs", "export", str(chain), "--environment", "Sandbox", *option)
        check(exported.returncode == 0, f"{label}: certs export with the signing options: {exported.stderr}")
        root = (chain / "root.der").read_bytes()
        check(root != default_root, f"{label}: the exported root is not the default one")
        check_run(binary, label, option, root, default_root)
        check_serve(binary, label, option, root, default_root, workspace)
        check_check(binary, label, option, root, workspace)
        if label == "ca-seed":
            check_check(binary, "default chain", [], root, workspace, expect_agree=False)
    print(f"signing options: {passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

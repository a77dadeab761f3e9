#!/usr/bin/env python3
"""A webhook that verifies every App Store Server Notification it receives, for the compose check (docs/recipes.md,
.dist/compose_check.sh). Python 3 and `cryptography` only (Debian's python3-cryptography, as in the check's backend
image), so that it runs in a container built without a registry.

    verifying_backend.py --port 8000 --root /certs/root.der --environment Sandbox --bundle-id com.example.app

The last three default to the variables docs/recipes.md's compose recipe gives its backend: APP_STORE_ROOT_CERTIFICATE,
APP_STORE_ENVIRONMENT and APP_STORE_BUNDLE_ID.

POST /apple/notifications: the body `{"signedPayload": JWS}` is verified as Apple's libraries verify it, offline:
  - the JWS header's `alg` is ES256 and its `x5c` holds three certificates: leaf, intermediate, root;
  - the root is the trusted one (--root, DER: `simctl certs export` writes it; read at the first notification, so the
    file may appear after start), the intermediate is signed by the root and the leaf by the intermediate, each
    within its validity at the notification's signedDate;
  - the leaf carries Apple's marker 1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1;
  - the signature (raw r||s, 64 bytes) verifies with the leaf's key over `header.payload`;
  - the payload's data.environment and data.bundleId are the expected ones.
A notification that passes is answered 200 and kept; one that fails is answered 400 with the reason, and counted.
GET /received: {"verified": [{"notificationType", "subtype", "notificationUUID"}...], "rejected": [reasons...]}.
"""

import argparse
import base64
import datetime
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

LEAF_MARKER = x509.ObjectIdentifier("1.2.840.113635.100.6.11.1")
INTERMEDIATE_MARKER = x509.ObjectIdentifier("1.2.840.113635.100.6.2.1")


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def signed_by(child, parent):
    """Raises unless `child`'s signature verifies with `parent`'s public key."""
    parent.public_key().verify(
        child.signature, child.tbs_certificate_bytes, ec.ECDSA(child.signature_hash_algorithm))


def validity(certificate, end):
    """not_valid_before/after as an aware datetime: `_utc` on cryptography 42 and later, naive UTC before."""
    aware = getattr(certificate, f"not_valid_{end}_utc", None)
    return aware or getattr(certificate, f"not_valid_{end}").replace(tzinfo=datetime.timezone.utc)


def verify(jws, root_der, environment, bundle_id):
    """The decoded payload of a verified notification; raises ValueError with the reason otherwise."""
    parts = jws.split(".")
    if len(parts) != 3:
        raise ValueError("not a compact JWS")
    header = json.loads(b64url(parts[0]))
    if header.get("alg") != "ES256":
        raise ValueError(f"alg is {header.get('alg')!r}, not ES256")
    chain = header.get("x5c") or []
    if len(chain) != 3:
        raise ValueError(f"x5c has {len(chain)} certificates, not 3")
    try:
        leaf, intermediate, root = (x509.load_der_x509_certificate(base64.b64decode(c)) for c in chain)
    except ValueError:
        raise ValueError("the x5c certificates are not DER certificates (an unsigned LocalTesting payload?)")
    if base64.b64decode(chain[2]) != root_der:
        raise ValueError("the chain's root is not the trusted root")
    payload = json.loads(b64url(parts[1]))
    when = datetime.datetime.fromtimestamp(payload["signedDate"] / 1000, datetime.timezone.utc)
    try:
        signed_by(root, root)
        signed_by(intermediate, root)
        signed_by(leaf, intermediate)
    except Exception as error:  # cryptography's InvalidSignature carries no text
        raise ValueError(f"the certificate chain does not verify ({type(error).__name__})")
    for certificate in (leaf, intermediate, root):
        if not validity(certificate, "before") <= when <= validity(certificate, "after"):
            raise ValueError(f"{certificate.subject.rfc4514_string()} is not valid at {when}")
    for certificate, marker in ((leaf, LEAF_MARKER), (intermediate, INTERMEDIATE_MARKER)):
        try:
            certificate.extensions.get_extension_for_oid(marker)
        except x509.ExtensionNotFound:
            raise ValueError(f"{certificate.subject.rfc4514_string()} lacks Apple's marker {marker.dotted_string}")
    signature = b64url(parts[2])
    if len(signature) != 64:
        raise ValueError(f"the signature has {len(signature)} bytes, not 64 (r||s)")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        leaf.public_key().verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
    except Exception as error:
        raise ValueError(f"the JWS signature does not verify ({type(error).__name__})")
    data = payload.get("data") or {}
    if data.get("environment") != environment:
        raise ValueError(f"environment {data.get('environment')!r}, expected {environment!r}")
    if data.get("bundleId") != bundle_id:
        raise ValueError(f"bundleId {data.get('bundleId')!r}, expected {bundle_id!r}")
    return payload


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--root", default=os.environ.get("APP_STORE_ROOT_CERTIFICATE"))
    parser.add_argument("--environment", default=os.environ.get("APP_STORE_ENVIRONMENT", "Sandbox"))
    parser.add_argument("--bundle-id", default=os.environ.get("APP_STORE_BUNDLE_ID"))
    options = parser.parse_args()
    if not options.root or not options.bundle_id:
        parser.error("--root and --bundle-id (or APP_STORE_ROOT_CERTIFICATE and APP_STORE_BUNDLE_ID) are required")
    lock = threading.Lock()
    verified, rejected = [], []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path != "/apple/notifications":
                return self.answer(404, {"error": "no such path"})
            try:
                with open(options.root, "rb") as file:
                    root_der = file.read()
                payload = verify(json.loads(body)["signedPayload"], root_der, options.environment, options.bundle_id)
            except (ValueError, KeyError, OSError) as error:
                with lock:
                    rejected.append(str(error))
                return self.answer(400, {"error": str(error)})
            with lock:
                verified.append({key: payload.get(key) for key in ("notificationType", "subtype", "notificationUUID")})
            self.answer(200, {})

        def do_GET(self):
            if self.path != "/received":
                return self.answer(404, {"error": "no such path"})
            with lock:
                self.answer(200, {"verified": list(verified), "rejected": list(rejected)})

    server = ThreadingHTTPServer(("0.0.0.0", options.port), Handler)
    server.daemon_threads = True
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Cross-checks simctl's P-256 ECDSA (ES256) against an independent implementation, Python's `cryptography`.

1. simctl signs COUNT messages (`simbench sign-vectors COUNT SEED`); `cryptography` verifies every signature, and
   rejects each one again with its message altered (so this direction can fail).
2. `cryptography` signs COUNT messages with keys derived from a seeded generator; simctl verifies them
   (`simbench verify-vectors FILE`). One line in ten has its message altered and is marked invalid, so simctl
   must reject those.

Usage: crypto_crosscheck.py [SIMBENCH] [COUNT]  (defaults: .build/debug/simbench, 1000). Exits non-zero on any
disagreement.
"""
import json
import random
import subprocess
import sys
import tempfile

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

SIMBENCH = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/simbench"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
SEED = 20261123
ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def verifies(public_key, signature_der, message):
    try:
        public_key.verify(signature_der, message, ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def simctl_signs_cryptography_verifies():
    output = subprocess.run(
        [SIMBENCH, "sign-vectors", str(COUNT), str(SEED)], check=True, capture_output=True, text=True
    ).stdout
    lines = [json.loads(line) for line in output.splitlines() if line.strip()]
    failures = 0
    for number, item in enumerate(lines, 1):
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(item["publicKey"]))
        message = bytes.fromhex(item["message"])
        signature = bytes.fromhex(item["signature"])
        altered = message + b"\x00"
        if not verifies(key, signature, message):
            failures += 1
            print(f"simctl signature {number} rejected by cryptography: {item}")
        elif verifies(key, signature, altered):
            failures += 1
            print(f"simctl signature {number} also verifies for an altered message: {item}")
    print(f"cryptography verified simctl's signatures: {len(lines) - failures} passed, {failures} failed")
    return failures == 0 and len(lines) == COUNT


def cryptography_signs_simctl_verifies():
    generator = random.Random(SEED)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as file:
        for index in range(COUNT):
            private_key = ec.derive_private_key(generator.randrange(1, ORDER), ec.SECP256R1())
            message = generator.randbytes(generator.randrange(0, 300))
            signature = private_key.sign(message, ec.ECDSA(hashes.SHA256()))
            valid = index % 10 != 9
            if not valid:
                message = message + b"!"
            r, s = utils.decode_dss_signature(signature)
            assert utils.encode_dss_signature(r, s) == signature
            public = private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
            file.write(
                json.dumps(
                    {"publicKey": public.hex(), "message": message.hex(), "signature": signature.hex(), "valid": valid}
                )
                + "\n"
            )
        path = file.name
    result = subprocess.run([SIMBENCH, "verify-vectors", path], capture_output=True, text=True)
    print("simctl verified cryptography's signatures: " + result.stdout.strip().splitlines()[-1])
    if result.returncode != 0:
        print(result.stdout)
    return result.returncode == 0 and result.stdout.strip().endswith(f"{COUNT} passed, 0 failed")


if __name__ == "__main__":
    first = simctl_signs_cryptography_verifies()
    second = cryptography_signs_simctl_verifies()
    sys.exit(0 if first and second else 1)

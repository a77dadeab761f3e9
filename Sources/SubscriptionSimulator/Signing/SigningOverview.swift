// The Signing folder: the cryptography simctl needs to sign simulated App Store payloads, written here because the
// package takes no dependencies (issue 11). One file per piece:
//
//   SHA256.swift            SHA-256 (FIPS 180-4), one-shot and incremental
//   HMACSHA256.swift        HMAC-SHA-256 (RFC 2104)
//   P256Arithmetic.swift    256-bit integers; Montgomery arithmetic mod p and mod n (4 x 64-bit limbs)
//   P256Point.swift         curve points (Jacobian), fixed-base comb table for G, width-5 NAF for other points
//   P256.swift              keys, key derivation from a seed, ES256 signing (RFC 6979 nonces) and verification
//   ECDSASignature.swift    signatures as raw r || s (JWS) and as strict DER
//
// FOR TEST DATA ONLY. These primitives sign fixtures with keys derived from published seeds; they protect nothing
// and must not be used to protect secrets.
//
// NOT CONSTANT-TIME. Signing reads the fixed-base table at indices given by the secret nonce's bytes, skips the
// addition for zero bytes, inverts with a variable-time binary extended Euclidean algorithm, and branches on
// exceptional point cases; anyone able to time the process or observe its cache could recover the keys. SHA-256
// and HMAC have no secret-dependent branches or lookups. Verification handles only public data.
//
// Correctness is checked by FIPS 180-4 and RFC 4231 vectors, RFC 6979 A.2.5 signatures byte for byte, all of
// Wycheproof's ecdsa_secp256r1_sha256 vectors, NIST CAVP SigVer [P-256,SHA-256], and in CI by Python's
// `cryptography` (1,000 signatures each way; Tests/Conformance/crypto_crosscheck.py). Speed: `simbench signing`.

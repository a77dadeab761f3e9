// The `signing` section of simbench (timed) and the untimed `sign-vectors` / `verify-vectors` modes that
// Tests/Conformance/crypto_crosscheck.py uses to compare simctl's P-256 ECDSA with Python's `cryptography`.
import Foundation
import SimctlCrypto
import SubscriptionSimulator

/// Keys and messages for the benchmark and the cross-check: keys derived from `seed`, messages 0 to 300 bytes.
struct SigningWorkload {
    let keys: [P256.PrivateKey]
    let messages: [[UInt8]]

    init(seed: UInt64, keyCount: Int, messageCount: Int) {
        var random = RandomSource(seed: seed)
        let seedBytes = (0..<8).map { UInt8(truncatingIfNeeded: seed >> (8 * UInt64($0))) }
        keys = (0..<keyCount).map { P256.PrivateKey(derivedFrom: seedBytes, label: "simbench key \($0)") }
        messages = (0..<messageCount).map { _ in
            (0..<random.nextInt(in: 0...300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
    }
}

/// Signs every message with one of the keys in turn; returns a checksum so the work is kept.
func signAll(_ workload: SigningWorkload) -> Int {
    var checksum = 0
    for (index, message) in workload.messages.enumerated() {
        let signature = workload.keys[index % workload.keys.count].signature(for: message)
        checksum &+= Int(signature.rawRepresentation[63])
    }
    return checksum
}

/// Verifies each (key, message, signature); returns how many verified.
func verifyAll(_ items: [(P256.PublicKey, [UInt8], ECDSASignature)]) -> Int {
    var valid = 0
    for (key, message, signature) in items where key.isValidSignature(signature, for: message) { valid += 1 }
    return valid
}

/// OpenSSL's single-process ECDSA P-256 sign/s and verify/s from `openssl speed`, or nil without openssl.
func opensslECDSASpeed() -> (sign: Double, verify: Double)? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/openssl" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["speed", "-seconds", "3", "ecdsap256"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    // The summary line: " 256 bits ecdsa (nistp256)   0.0000s   0.0001s  36000.0  12000.0" (sign/s, verify/s last).
    guard let line = output.split(separator: "\n").last(where: { $0.contains("nistp256") && $0.contains("bits") })
    else { return nil }
    let numbers = line.split(separator: " ").compactMap { Double($0) }
    guard numbers.count >= 2 else { return nil }
    return (numbers[numbers.count - 2], numbers[numbers.count - 1])
}

/// This thread's CPU time in seconds (the machine is shared: wall-clock rates depend on the other processes,
/// while OpenSSL's `speed` divides by CPU user time too).
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Like `measure`, but divides by this thread's CPU time; prints and returns the median rate.
func measureCPU(_ name: String, unit: String, runs: Int, _ body: () -> Int) -> Double {
    _ = body()
    var rates: [Double] = []
    for _ in 0..<runs {
        let start = threadCPUSeconds()
        let work = body()
        rates.append(Double(work) / (threadCPUSeconds() - start))
    }
    rates.sort()
    print(
        "  \(name): median \(format(rates[runs / 2])) \(unit)/s of CPU time (min \(format(rates[0])), "
            + "max \(format(rates[runs - 1])), \(runs) runs)")
    return rates[runs / 2]
}

/// The timed section: ES256 signatures/s and verifications/s on one core (medians), beside OpenSSL's when present.
@MainActor
func runSigningSection() -> String {
    print("ES256 (P-256 ECDSA with SHA-256, RFC 6979 nonces), one core; messages of 0 to 300 bytes")
    let signing = SigningWorkload(seed: 11, keyCount: 16, messageCount: 2_000)
    _ = P256.PrivateKey(derivedFrom: [1], label: "warm-up").signature(for: [])  // builds the fixed-base table
    let sign = measureCPU("sign", unit: "signatures", runs: 7) {
        sink &+= signAll(signing)
        return signing.messages.count
    }
    let items = signing.messages.prefix(1_000).enumerated().map { index, message in
        let key = signing.keys[index % signing.keys.count]
        return (key.publicKey, message, key.signature(for: message))
    }
    let verify = measureCPU("verify", unit: "verifications", runs: 7) {
        sink &+= verifyAll(items)
        return items.count
    }
    _ = measure("sign, wall clock", unit: "signatures", runs: 3) {
        sink &+= signAll(signing)
        return signing.messages.count
    }
    var message = [UInt8](repeating: 0x61, count: 16_384)
    let hashes = measureCPU("SHA-256 of 16 KB messages", unit: "messages", runs: 7) {
        for _ in 0..<100 { message[0] = SHA256.hash(message)[0] }
        return 100
    }
    print("  SHA-256 on 16 KB messages: \(decimal(hashes * 16_384 / 1_000_000)) MB/s of CPU time")
    if let openssl = opensslECDSASpeed() {
        print(
            "  openssl speed -seconds 3 ecdsap256: \(format(openssl.sign)) sign/s, \(format(openssl.verify)) verify/s; "
                + "simctl/openssl: sign \(decimal(sign / openssl.sign)), "
                + "verify \(decimal(verify / openssl.verify))")
    } else {
        print("  (openssl not on PATH: no comparison)")
    }
    return "ES256 signatures >= 10 k/s (CPU time): \(sign >= 10_000 ? "met" : "NOT met")"
}

// MARK: - Cross-check modes (untimed)

func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

func bytes(hex text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var index = 0
    while index < utf8.count {
        guard let byte = UInt8(String(decoding: utf8[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        out.append(byte)
        index += 2
    }
    return out
}

/// `sign-vectors COUNT SEED`: COUNT lines of JSON {"publicKey", "message", "signature"} (hex; the public key in
/// X9.63 form, the signature as DER), keys derived from SEED, messages of 0 to 300 bytes.
func printSignedVectors(count: Int, seed: UInt64) {
    let workload = SigningWorkload(seed: seed, keyCount: 50, messageCount: count)
    for (index, message) in workload.messages.enumerated() {
        let key = workload.keys[index % workload.keys.count]
        let signature = key.signature(for: message)
        print(
            "{\"publicKey\":\"\(hex(key.publicKey.x963Representation))\",\"message\":\"\(hex(message))\","
                + "\"signature\":\"\(hex(signature.derRepresentation))\"}")
    }
}

/// `verify-vectors FILE`: verifies each JSON line {"publicKey", "message", "signature" (DER), "valid" (optional,
/// default true)}; prints "N passed, M failed" and returns whether every line gave the expected answer.
func verifyVectorFile(_ path: String) -> Bool {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        print("verify-vectors: cannot read \(path)")
        return false
    }
    var passed = 0
    var failed = 0
    for (number, line) in text.split(separator: "\n").enumerated() where !line.isEmpty {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let keyHex = object["publicKey"] as? String, let messageHex = object["message"] as? String,
            let signatureHex = object["signature"] as? String, let keyBytes = bytes(hex: keyHex),
            let message = bytes(hex: messageHex), let signatureBytes = bytes(hex: signatureHex)
        else {
            print("\(path):\(number + 1): expected {\"publicKey\", \"message\", \"signature\"} in hex")
            failed += 1
            continue
        }
        let expected = object["valid"] as? Bool ?? true
        var valid = false
        if let key = try? P256.PublicKey(x963Representation: keyBytes),
            let signature = try? ECDSASignature(derRepresentation: signatureBytes)
        {
            valid = key.isValidSignature(signature, for: message)
        }
        if valid == expected {
            passed += 1
        } else {
            failed += 1
            print(
                "\(path):\(number + 1): expected \(expected ? "valid" : "invalid"), got \(valid ? "valid" : "invalid")")
        }
    }
    print("\(passed) passed, \(failed) failed")
    return failed == 0 && passed > 0
}

/// Handles `sign-vectors` and `verify-vectors` (which take arguments, unlike the timed sections); exits when one
/// of them is asked for.
func runCrossCheckModeIfAsked(_ arguments: [String]) {
    guard let mode = arguments.first, mode == "sign-vectors" || mode == "verify-vectors" else { return }
    if mode == "sign-vectors", arguments.count == 3, let count = Int(arguments[1]), count >= 0,
        let seed = UInt64(arguments[2])
    {
        printSignedVectors(count: count, seed: seed)
        exit(0)
    }
    if mode == "verify-vectors", arguments.count == 2 {
        exit(verifyVectorFile(arguments[1]) ? 0 : 1)
    }
    print("usage: simbench sign-vectors COUNT SEED | simbench verify-vectors FILE")
    exit(64)
}

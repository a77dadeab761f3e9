import Foundation
import Testing

@testable import SimctlCrypto

/// Wycheproof's ECDSA P-256/SHA-256 verification vectors (DER signatures), the whole committed file: see
/// Vectors/README.md. The file has no "acceptable" results; were one added, it would be reported, not judged.
@Suite struct WycheproofTests {
    struct Vector: Sendable {
        let id: Int
        let comment: String
        let flags: [String]
        let publicKey: [UInt8]
        let message: [UInt8]
        let signature: [UInt8]
        let result: String
    }

    static func load() throws -> [Vector] {
        let data = Data(try CryptoVectors.text("wycheproof_ecdsa_secp256r1_sha256_test.json").utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let groups = try #require(root["testGroups"] as? [[String: Any]])
        var vectors: [Vector] = []
        for group in groups {
            let key = try #require(group["publicKey"] as? [String: Any])
            let uncompressed = try hexField(key, "uncompressed")
            for test in try #require(group["tests"] as? [[String: Any]]) {
                vectors.append(
                    Vector(
                        id: try #require(test["tcId"] as? Int), comment: test["comment"] as? String ?? "",
                        flags: test["flags"] as? [String] ?? [], publicKey: uncompressed,
                        message: try hexField(test, "msg"), signature: try hexField(test, "sig"),
                        result: try #require(test["result"] as? String)))
            }
        }
        return vectors
    }

    static func hexField(_ object: [String: Any], _ name: String) throws -> [UInt8] {
        let text = try #require(object[name] as? String, "missing \(name)")
        return try #require(Hex.bytes(text), "\(name) is not hex")
    }

    /// Parse the key and the DER signature, then verify; any parse failure is a rejection.
    static func accepts(_ vector: Vector) -> Bool {
        guard let key = try? P256.PublicKey(x963Representation: vector.publicKey),
            let signature = try? ECDSASignature(derRepresentation: vector.signature)
        else { return false }
        return key.isValidSignature(signature, for: vector.message)
    }

    @Test func fileHoldsEveryTestOfTheSuite() throws {
        let vectors = try Self.load()
        #expect(vectors.count == 484)
        #expect(Set(vectors.map(\.result)) == ["valid", "invalid"])
    }

    @Test func everyValidSignatureIsAccepted() throws {
        for vector in try Self.load() where vector.result == "valid" {
            #expect(Self.accepts(vector), "tcId \(vector.id) (\(vector.comment), \(vector.flags)) was rejected")
        }
    }

    @Test func everyInvalidSignatureIsRejected() throws {
        for vector in try Self.load() where vector.result == "invalid" {
            #expect(!Self.accepts(vector), "tcId \(vector.id) (\(vector.comment), \(vector.flags)) was accepted")
        }
    }

    /// The strict DER reader accepts only canonical encodings: whatever it parses re-encodes to the same bytes.
    @Test func parsedDERReencodesToTheSameBytes() throws {
        for vector in try Self.load() {
            if let signature = try? ECDSASignature(derRepresentation: vector.signature) {
                #expect(signature.derRepresentation == vector.signature, "tcId \(vector.id) (\(vector.comment))")
            }
        }
    }

    @Test func acceptableResultsAreReportedNotJudged() throws {
        let acceptable = try Self.load().filter { $0.result == "acceptable" }
        for vector in acceptable {
            print(
                "Wycheproof tcId \(vector.id) is acceptable; simctl \(Self.accepts(vector) ? "accepts" : "rejects") it")
        }
        #expect(acceptable.isEmpty, "the committed file has acceptable results now: document simctl's choice")
    }
}

/// NIST CAVP FIPS 186-3 ECDSA SigVer, [P-256,SHA-256]: see Vectors/README.md.
@Suite struct CAVPSigVerTests {
    struct Record: Sendable {
        let line: Int
        let message: [UInt8]
        let publicKey: [UInt8]
        let r: [UInt8]
        let s: [UInt8]
        let passes: Bool
    }

    static func load() throws -> [Record] {
        var records: [Record] = []
        var fields: [String: String] = [:]
        for (index, line) in try CryptoVectors.text("SigVer_P256_SHA256.rsp").split(
            separator: "\n", omittingEmptySubsequences: false
        ).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") || trimmed.hasPrefix("[") || trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(parts.count == 2, "line \(index + 1): expected 'name = value'")
            fields[parts[0]] = parts[1]
            if parts[0] == "Result" {
                func field(_ name: String, width: Int? = nil) throws -> [UInt8] {
                    var hex = try #require(fields[name], "line \(index + 1): record without \(name)")
                    if let width { hex = String(repeating: "0", count: max(0, 2 * width - hex.count)) + hex }
                    return try #require(Hex.bytes(hex))
                }
                records.append(
                    Record(
                        line: index + 1, message: try field("Msg"),
                        publicKey: [4] + (try field("Qx", width: 32)) + (try field("Qy", width: 32)),
                        r: try field("R", width: 32), s: try field("S", width: 32), passes: parts[1].hasPrefix("P")))
                fields = [:]
            }
        }
        return records
    }

    @Test func everyRecordGetsItsExpectedResult() throws {
        let records = try Self.load()
        #expect(records.count == 15)
        for record in records {
            var accepted = false
            if let key = try? P256.PublicKey(x963Representation: record.publicKey) {
                let signature = try ECDSASignature(rawRepresentation: record.r + record.s)
                accepted = key.isValidSignature(signature, for: record.message)
            }
            #expect(accepted == record.passes, "record ending at line \(record.line)")
        }
    }
}

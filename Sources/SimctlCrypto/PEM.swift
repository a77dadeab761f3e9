/// PEM text (RFC 7468): `-----BEGIN LABEL-----`, the DER in standard base64 wrapped at 64 characters, and
/// `-----END LABEL-----`. Reading is strict about the armour and the base64 (RFC 7468 §3's "strict" grammar, with
/// any line length and CRLF or LF line ends); text outside the blocks is ignored, as RFC 7468 §2 allows.
package enum PEM {
    /// One block: its label (`CERTIFICATE`, `PRIVATE KEY`, `EC PRIVATE KEY`, `PUBLIC KEY`) and its DER bytes.
    package struct Block: Hashable, Sendable {
        var label: String
        package var derBytes: [UInt8]

        init(label: String, derBytes: [UInt8]) {
            self.label = label
            self.derBytes = derBytes
        }
    }

    /// The PEM text of one block, lines of 64 characters, ending in a newline.
    static func encode(_ block: Block) -> String {
        let text = Base64URL.encodeStandard(block.derBytes)
        var out = "-----BEGIN \(block.label)-----\n"
        var index = text.startIndex
        while index < text.endIndex {
            let end = text.index(index, offsetBy: 64, limitedBy: text.endIndex) ?? text.endIndex
            out += text[index..<end] + "\n"
            index = end
        }
        return out + "-----END \(block.label)-----\n"
    }

    static func encode(label: String, derBytes: [UInt8]) -> String {
        encode(Block(label: label, derBytes: derBytes))
    }

    /// Every block in `text`, in order.
    static func decodeAll(_ text: String) throws(PEMError) -> [Block] {
        var blocks: [Block] = []
        var open: (label: String, line: Int, body: String)?
        for (number, rawLine) in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }
        ).enumerated() {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let lineNumber = number + 1
            if line.hasPrefix("-----BEGIN ") {
                guard open == nil else {
                    throw PEMError("line \(lineNumber): BEGIN inside the block of line \(open!.line)")
                }
                guard line.hasSuffix("-----"), line.count > 16 else {
                    throw PEMError("line \(lineNumber): malformed BEGIN line '\(line)'")
                }
                open = (String(line.dropFirst(11).dropLast(5)), lineNumber, "")
            } else if line.hasPrefix("-----END ") {
                guard let current = open else { throw PEMError("line \(lineNumber): END without BEGIN") }
                let label = line.hasSuffix("-----") ? String(line.dropFirst(9).dropLast(5)) : ""
                guard label == current.label else {
                    throw PEMError("line \(lineNumber): expected '-----END \(current.label)-----', found '\(line)'")
                }
                guard let bytes = decodeBase64(current.body) else {
                    throw PEMError("the block of line \(current.line) (\(label)) is not valid base64")
                }
                blocks.append(Block(label: label, derBytes: bytes))
                open = nil
            } else if open != nil {
                open!.body += line.filter { $0 != " " && $0 != "\t" }
            }
        }
        if let current = open { throw PEMError("the block of line \(current.line) has no END line") }
        return blocks
    }

    /// The one block in `text`, which must carry one of `labels`.
    package static func decodeSingle(_ text: String, labels: [String]) throws(PEMError) -> Block {
        let blocks = try decodeAll(text)
        guard blocks.count == 1 else {
            throw PEMError("expected one PEM block (\(labels.joined(separator: " or "))), found \(blocks.count)")
        }
        guard labels.contains(blocks[0].label) else {
            throw PEMError(
                "expected a PEM block labelled \(labels.joined(separator: " or ")), found \(blocks[0].label)")
        }
        return blocks[0]
    }

    /// Standard base64 with `=` padding required (RFC 4648 §4); `nil` on any other character, on missing or
    /// misplaced padding, or on non-zero padding bits.
    package static func decodeBase64(_ text: String) -> [UInt8]? {
        var sextets = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in Base64URL.standardAlphabet.enumerated() { sextets[Int(byte)] = UInt8(value) }
        let bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return nil }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4 * 3)
        var index = 0
        while index < bytes.count {
            var n: UInt32 = 0
            var valid = 0
            for k in 0..<4 {
                let byte = bytes[index + k]
                if byte == UInt8(ascii: "=") {
                    guard index + 4 == bytes.count, k >= 4 - padding else { return nil }
                    n <<= 6
                    continue
                }
                let value = sextets[Int(byte)]
                guard value != 0xFF else { return nil }
                n = n << 6 | UInt32(value)
                valid += 1
            }
            out.append(UInt8(n >> 16 & 0xFF))
            if valid > 2 { out.append(UInt8(n >> 8 & 0xFF)) } else if n >> 8 & 0xFF != 0 { return nil }
            if valid > 3 { out.append(UInt8(n & 0xFF)) } else if valid == 3 && n & 0xFF != 0 { return nil }
            index += 4
        }
        return out
    }
}

/// PEM text that cannot be read; the message names the line and the rule.
package struct PEMError: Error, Hashable, Sendable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}

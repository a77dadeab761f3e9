import Testing

@testable import SubscriptionSimulator

/// The reader reads each line as one byte per column (non-ASCII lines through stand-in bytes) and takes quoted
/// text in runs straight from those bytes: texts, columns and messages are the same as reading scalar by scalar.
@Suite struct YAMLByteReaderTests {
    func parse(_ text: String) throws -> YAMLNode { try YAMLReader.parse(text) }

    func error(_ text: String) -> YAMLError? {
        do {
            _ = try YAMLReader.parse(text)
            return nil
        } catch {
            return error
        }
    }

    func quoted(_ text: String) throws -> YAMLScalar? {
        guard case .scalar(let scalar)? = try parse("a: \(text)\n").value(forKey: "a")?.kind else { return nil }
        return scalar
    }

    @Test func quotedTextInOneRunAndInSeveral() throws {
        #expect(try quoted(#""plain run""#) == YAMLScalar(text: "plain run", style: .doubleQuoted))
        #expect(try quoted("''") == YAMLScalar(text: "", style: .singleQuoted))
        #expect(try quoted(#""""#) == YAMLScalar(text: "", style: .doubleQuoted))
        #expect(try quoted("'it''s'")?.text == "it's")
        #expect(try quoted("''''")?.text == "'")
        #expect(try quoted("'a''''b'")?.text == "a''b")
        #expect(try quoted(#""\tstart""#)?.text == "\tstart")
        #expect(try quoted(#""end\n""#)?.text == "end\n")
        #expect(try quoted(#""\\\"\/\r\0""#)?.text == "\\\"/\r\0")
        #expect(try quoted(#""a\u00e9b\u0041""#)?.text == "aébA")
        // Non-ASCII text around escapes and doubled quotes keeps its scalars.
        #expect(try quoted(#""é\u00e9x\t" "#)?.text == "ééx\t")
        #expect(try quoted("'😀 it''s e\u{301}'")?.text == "😀 it's e\u{301}")
        #expect(try quoted(##""# \" not a comment""##)?.text == "# \" not a comment")
    }

    @Test func quotedTextEndsAtItsQuoteAndTheColumnAfterIt() throws {
        let root = try parse("a: ['x', \"y\", 'é''', \"\\u00e9\"]\nb: { k: 'v' }\n")
        let items = try #require(root.value(forKey: "a")?.sequenceItems)
        #expect(items.map(\.scalarText) == ["x", "y", "é'", "é"])
        #expect(items.map(\.location.column) == [5, 10, 15, 22])
        #expect(root.value(forKey: "b")?.value(forKey: "k")?.scalarText == "v")
    }

    @Test func quotedTextErrorsKeepTheirPlaces() {
        #expect(error(#"a: "x\é""#)?.description == #"1:6: unknown escape '\é' in double-quoted text"#)
        #expect(error(#"a: "x\u00g1""#)?.description == "1:6: expected 4 hex digits after \\u")
        #expect(error(#"a: "x\u00e""#)?.description == "1:6: expected 4 hex digits after \\u")
        #expect(error(#"a: "é\"#)?.description == "1:6: unterminated escape")
        #expect(
            error("a: 'é''\n")?.description == "1:4: unterminated quoted text; the closing ' must be on the same line")
    }

    /// A message that quotes the character found shows the scalar, not its stand-in byte.
    @Test func foundCharactersAreTheirScalars() {
        #expect(error(#"a: [x, "y"é]"#)?.description == "1:11: expected ',' or ']' in a list, found 'é'")
        #expect(error(#"a: { "k": "v"😀 }"#)?.description == "1:14: expected ',' or '}' in a mapping, found '😀'")
        #expect(error("a: [ ]é\n")?.description == "1:7: unexpected text after the value; expected the end of the line")
    }

    /// Columns count scalars on a line with non-ASCII text, and no non-ASCII scalar reads as a character the
    /// reader looks for (its stand-in byte is none of them).
    @Test func nonASCIILinesCountScalars() throws {
        #expect(
            error("é😀: [a, b]\nb: x: y\nc: — x: y\n")?.description
                == "2:5: ':' inside a plain value is ambiguous; put the whole value in quotes if it is text, "
                + "or start a nested mapping on the next line")
        #expect(error("a: é😀 x: y\n")?.location == SourceLocation(line: 1, column: 8))
        let root = try parse("k\u{80}: v\u{85}\u{2028}\nn: { é: [ü, ö], x: 'ß' }\n")
        #expect(root.value(forKey: "k\u{80}")?.scalarText == "v\u{85}\u{2028}")
        #expect(root.value(forKey: "n")?.value(forKey: "é")?.sequenceItems?.map(\.scalarText) == ["ü", "ö"])
        #expect(root.value(forKey: "n")?.value(forKey: "x")?.location == SourceLocation(line: 2, column: 20))
    }

    @Test func carriageReturnsAndTabsAreFoundInLineOrder() {
        let cr =
            "a carriage return (CR) with no line feed after it: the file seems to use CR-only line endings "
            + "(classic Mac OS); save it with LF or CRLF line endings"
        #expect(error("a: 1\nb: x\ry\n")?.description == "2:5: \(cr)")
        #expect(error("a: 1\nb: é\ry\n")?.description == "2:5: \(cr)")
        #expect(error("a:\n\t b: 1\nc: x\ry\n")?.description == "2:1: tabs are not allowed for indentation; use spaces")
        #expect(error("a: x\ry\n \tb: 1\n")?.description == "1:5: \(cr)")
        #expect(error("a: 1\r\r\n")?.description == "1:5: \(cr)")
        #expect((try? parse("a: 1\r\nb: \"x\"\r\nc: é\r\n"))?.value(forKey: "c")?.scalarText == "é")
        #expect((try? parse("a: 1\r"))?.value(forKey: "a")?.scalarText == "1")
    }

    /// A long text on an ASCII line equal to the last one interned is that one, made without a `String` of its own;
    /// one on a non-ASCII line, or a different one, is read as before.
    @Test func longTextsOfASCIILinesAreInternedFromTheirBytes() throws {
        let long = "com.example.scale.monthly"
        let root = try parse(
            "a: \(long)\nb: '\(long)'\nc: [\(long) ]\nd: \(long)x\ne: \(long) # é\nf: é\(long)\ng: \(long)\n")
        let texts = try #require(
            root.mappingEntries?.map { $0.value.scalarText ?? $0.value.sequenceItems?.first?.scalarText })
        #expect(texts == [long, long, long, long + "x", long, "é" + long, long])
        let a = try #require(texts[0])
        for index in [1, 2, 4, 6] {
            #expect(YAMLCompactTreeTests.shareStorage(a, try #require(texts[index])))
        }
    }
}

/// Short durations are read byte by byte: the same durations, and nil for the same texts, as the forms allow.
@Suite struct ShortDurationTests {
    @Test func eachUnit() {
        #expect(CalendarDurationSyntax.parse("0") == .zero)
        #expect(CalendarDurationSyntax.parse("500ms") == .milliseconds(500))
        #expect(CalendarDurationSyntax.parse("25920s") == .seconds(25920))
        #expect(CalendarDurationSyntax.parse("30m") == .minutes(30))
        #expect(CalendarDurationSyntax.parse("1h") == .hours(1))
        #expect(CalendarDurationSyntax.parse("16d") == .days(16))
        #expect(CalendarDurationSyntax.parse("2w") == .weeks(2))
        #expect(CalendarDurationSyntax.parse("0s") == .seconds(0))
        #expect(CalendarDurationSyntax.parse("007m") == .minutes(7))
        #expect(CalendarDurationSyntax.parse("999999999ms") == .milliseconds(999_999_999))
        #expect(CalendarDurationSyntax.parse("999999999w") == .weeks(999_999_999))
        #expect(CalendarDurationSyntax.parse("P1M") == .months(1))
    }

    @Test func notShortDurations() {
        for text in [
            "", "s", "ms", "m", "0ms0", "1000000000s", "1000000000ms", "1x", "1S", "1 s", " 1s", "1s ", "-1s",
            "+1s", "1.5s", "1sm", "1mss", "m5s", "5\u{301}s", "5s\u{301}", "٣s", "１s", "5\r\ns", "00", "0 ", "Ps",
        ] {
            #expect(CalendarDurationSyntax.parse(text) == nil, "\(text.debugDescription)")
        }
    }

    /// Every text of up to four characters from digits, units and a few others: a duration exactly when it is 1 to
    /// 9 digits and one unit, or `0`.
    @Test func everyShortText() {
        let alphabet = ["0", "7", "s", "m", "h", "d", "w", "x", "é", " "]
        var texts = [""]
        for _ in 0..<4 { texts += texts.flatMap { text in alphabet.map { text + $0 } } }
        for text in Set(texts) {
            var expected: CalendarDuration?
            if text == "0" {
                expected = .zero
            } else if let last = text.last, "smhdw".contains(last) {
                let ms = text.hasSuffix("ms")
                let digits = text.dropLast(ms ? 2 : 1)
                if !digits.isEmpty, digits.allSatisfy({ "0123456789".contains($0) }), let value = Int(digits) {
                    switch ms ? "ms" : String(last) {
                    case "ms": expected = .milliseconds(value)
                    case "s": expected = .seconds(value)
                    case "m": expected = .minutes(value)
                    case "h": expected = .hours(value)
                    case "d": expected = .days(value)
                    default: expected = .weeks(value)
                    }
                }
            }
            #expect(CalendarDurationSyntax.parse(text) == expected, "\(text.debugDescription)")
        }
    }
}

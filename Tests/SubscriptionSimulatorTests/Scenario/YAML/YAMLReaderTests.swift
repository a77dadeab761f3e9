import Testing
@testable import SubscriptionSimulator

@Suite struct YAMLReaderTests {
    static let contract = """
        name: Organizer buys a family plan, then stops sharing
        start: 2026-03-01T09:00:00Z
        seed: 7
        app:
          bundleId: com.example.nightsky
          gracePeriod: 16d            # off | 3d | 16d | 28d
        products:
          - id: com.example.nightsky.family.monthly
            type: autoRenewable       # autoRenewable | nonConsumable
            familyShareable: true
        family:
          organizer: alice
          members: [bob, carol]
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.nightsky.family.monthly }
        expect:
          - notifications:
              customer: bob
              exactly:
                - { at: 1h, type: SUBSCRIBED, subtype: INITIAL_BUY }
        """

    func parse(_ text: String) throws -> YAMLNode { try YAMLReader.parse(text) }

    @Test func readsTheScenarioShapeWithLocations() throws {
        let root = try parse(Self.contract)
        #expect(root.value(forKey: "start")?.scalarText == "2026-03-01T09:00:00Z")
        #expect(root.value(forKey: "app")?.value(forKey: "gracePeriod")?.scalarText == "16d")
        let product = root.value(forKey: "products")?.sequenceItems?.first
        #expect(product?.location == SourceLocation(line: 8, column: 5))
        #expect(product?.value(forKey: "familyShareable")?.scalarText == "true")
        #expect(
            root.value(forKey: "family")?.value(forKey: "members")?.sequenceItems?.compactMap(\.scalarText) == [
                "bob", "carol",
            ])
        let entry = root.value(forKey: "timeline")?.sequenceItems?.first
        let purchase = entry?.value(forKey: "purchase")
        #expect(purchase?.location == SourceLocation(line: 16, column: 15))
        #expect(purchase?.value(forKey: "customer")?.scalarText == "alice")
        #expect(purchase?.value(forKey: "customer")?.location == SourceLocation(line: 16, column: 27))
        let item = root.value(forKey: "expect")?.sequenceItems?.first?.value(forKey: "notifications")?.value(
            forKey: "exactly")?.sequenceItems?.first
        #expect(item?.value(forKey: "subtype")?.scalarText == "INITIAL_BUY")
    }

    @Test func plainScalarsAreNeverTyped() throws {
        let root = try parse("a: off\nb: yes\nc: 1.0\nd: true\ne: ~\n")
        #expect(root.mappingEntries?.map { $0.value.scalarText ?? "" } == ["off", "yes", "1.0", "true", "~"])
    }

    @Test func quotedScalarsAndEscapes() throws {
        let root = try parse(#"a: 'it''s # not a comment'\#nb: "tab\there \"q\" \u00e9"\#n"#)
        #expect(root.value(forKey: "a")?.scalarText == "it's # not a comment")
        #expect(root.value(forKey: "b")?.scalarText == "tab\there \"q\" é")
        guard case .scalar(let scalar)? = root.value(forKey: "b")?.kind else { Issue.record("not a scalar"); return }
        #expect(scalar.style == .doubleQuoted)
    }

    /// A quoted key may open a block mapping, at the top or nested, not only follow another key.
    @Test func aQuotedKeyMayBeTheFirstKeyOfAMapping() throws {
        let root = try parse("\"name\": x\nb: 1\nc:\n  'd e': [1]\n  f: \"g\"\n")
        #expect(root.value(forKey: "name")?.scalarText == "x")
        #expect(root.value(forKey: "b")?.scalarText == "1")
        #expect(root.value(forKey: "c")?.value(forKey: "d e")?.sequenceItems?.first?.scalarText == "1")
        #expect(root.value(forKey: "c")?.value(forKey: "f")?.scalarText == "g")
        #expect(root.value(forKey: "c")?.value(forKey: "d e")?.location.line == 4)
    }

    /// A quoted scalar with no colon after it is still a lone value.
    @Test func aQuotedValueOnItsOwnLineIsAValue() throws {
        let root = try parse("a:\n  \"x: y\"\n")
        #expect(root.value(forKey: "a")?.scalarText == "x: y")
    }

    @Test func commentsEverywhere() throws {
        let root = try parse("# head\n\na: 1 # tail\n# between\nb:   # after key\n  - x # item\n  # inside\n  - y\n")
        #expect(root.value(forKey: "a")?.scalarText == "1")
        #expect(root.value(forKey: "b")?.sequenceItems?.compactMap(\.scalarText) == ["x", "y"])
    }

    @Test func nestedFlowCollectionsSpanningLines() throws {
        let root = try parse("e: { alice: [a, b],\n     bob: [],\n     carol: { x: [ [1], {} ] } }\n")
        #expect(root.value(forKey: "e")?.value(forKey: "alice")?.sequenceItems?.count == 2)
        #expect(root.value(forKey: "e")?.value(forKey: "bob")?.sequenceItems?.isEmpty == true)
        #expect(root.value(forKey: "e")?.value(forKey: "carol")?.value(forKey: "x")?.sequenceItems?.count == 2)
    }

    @Test func listMayStartAtTheKeysIndentation() throws {
        let root = try parse("items:\n- a\n- b\nnext: 1\n")
        #expect(root.value(forKey: "items")?.sequenceItems?.count == 2)
        #expect(root.value(forKey: "next")?.scalarText == "1")
    }

    @Test func crlfLineEndingsAreAccepted() throws {
        let root = try parse("a: 1\r\nb:\r\n  - x\r\n")
        #expect(root.value(forKey: "b")?.sequenceItems?.first?.scalarText == "x")
    }

    @Test func unicodeColumnsCountCharacters() throws {
        let root = try parse("name: héllo wörld\nnext: { a: 1 }\n")
        #expect(root.value(forKey: "name")?.scalarText == "héllo wörld")
        #expect(root.value(forKey: "next")?.mappingEntries?.first?.key.location == SourceLocation(line: 2, column: 9))
        #expect(root.value(forKey: "next")?.value(forKey: "a")?.location == SourceLocation(line: 2, column: 12))
        #expect(
            throws: YAMLError(
                location: SourceLocation(line: 1, column: 5),
                message:
                    "':' inside a plain value is ambiguous; put the whole value in quotes if it is text, or start a nested mapping on the next line"
            )
        ) {
            try parse("é: ü: x: y\n")
        }
    }

    @Test func anOptionalLeadingDocumentMarkerIsAccepted() throws {
        #expect(try parse("---\na: 1\n").value(forKey: "a")?.scalarText == "1")
    }

    /// Every rejected construct: its own message at its exact place.
    static let rejections: [(String, String, String)] = [
        ("empty file", "", "1:1: the file is empty; expected a scenario mapping"),
        ("only comments", "# nothing\n\n", "1:1: the file is empty; expected a scenario mapping"),
        ("tab indentation", "a:\n\tb: 1\n", "2:1: tabs are not allowed for indentation; use spaces"),
        ("anchor", "a: &x 1\n", "1:4: anchors ('&') are not supported; write the value out"),
        ("alias", "a: *x\n", "1:4: aliases ('*') are not supported; write the value out"),
        ("tag", "a: !!str 1\n", "1:4: tags ('!') are not supported; values are plain text"),
        ("anchor in flow", "a: [1, &y 2]\n", "1:8: anchors ('&') are not supported; write the value out"),
        (
            "block scalar |", "a: |\n  text\n",
            "1:4: block scalars (| and >) are not supported; write the text on one line in quotes"
        ),
        (
            "block scalar >", "a: >\n  text\n",
            "1:4: block scalars (| and >) are not supported; write the text on one line in quotes"
        ),
        (
            "second document", "a: 1\n---\nb: 2\n",
            "2:1: more than one document ('---') is not supported; a scenario file holds one document"
        ),
        (
            "document end", "a: 1\n...\n",
            "2:1: more than one document ('...') is not supported; a scenario file holds one document"
        ),
        ("directive", "%YAML 1.2\na: 1\n", "1:1: directives ('%') are not supported"),
        ("duplicate key", "a: 1\nb: 2\na: 3\n", "3:1: duplicate key 'a'; first defined at 1:1"),
        ("duplicate flow key", "a: { x: 1, x: 2 }\n", "1:12: duplicate key 'x'; first defined at 1:6"),
        ("complex key", "? a\n: 1\n", "1:1: complex keys ('? ') are not supported"),
        ("merge key", "a: 1\n<<: 2\n", "2:1: merge keys ('<<') are not supported; write the keys out"),
        ("unclosed flow list", "a: [1, 2\n", "1:4: this '[' is never closed; expected ']'"),
        ("unclosed flow map", "a: { x: 1\nb: 2\n", "2:1: expected ',' or '}' in a mapping, found 'b'"),
        ("flow never closed", "a: [1,\n", "1:4: this '[' is never closed; expected ']'"),
        (
            "unterminated single quote", "a: 'abc\n",
            "1:4: unterminated quoted text; the closing ' must be on the same line"
        ),
        (
            "unterminated double quote", "a: \"abc\n",
            "1:4: unterminated quoted text; the closing \" must be on the same line"
        ),
        ("unknown escape", "a: \"\\q\"\n", "1:5: unknown escape '\\q' in double-quoted text"),
        (
            "deeper indentation", "a: 1\n  b: 2\n",
            "2:3: unexpected indentation: expected a key at column 1, found text at column 3"
        ),
        (
            "list among keys", "a: 1\n- b\n",
            "2:1: expected a key, found a list item '- '; a list cannot be mixed with the keys of a mapping"
        ),
        ("key without colon", "a: 1\nb\n", "2:1: expected 'key: value', found 'b' with no ':' after it"),
        (
            "colon in plain value", "a: b: c\n",
            "1:5: ':' inside a plain value is ambiguous; put the whole value in quotes if it is text, or start a nested mapping on the next line"
        ),
        ("text after flow", "a: [1] x\n", "1:8: unexpected text after the value; expected the end of the line"),
        ("missing flow colon", "a: { x }\n", "1:8: expected ':' after the key 'x'"),
        ("empty list item", "a: [1,, 2]\n", "1:7: expected a value, found ','"),
        ("reserved indicator", "a: @x\n", "1:4: '@' cannot start a plain value; put the value in quotes"),
        (
            "deeper list item", "a:\n  - 1\n    - 2\n",
            "3:5: unexpected indentation: expected a list item '- ' at column 3, found text at column 5"
        ),
        (
            "list item after key on one line", "a: - 1\n",
            "1:4: a list item '- ' cannot follow a key on the same line; start the list on the next line"
        ),
    ]

    /// Deep nesting is an error with a place, never a stack overflow (10,000 levels crashed the reader before).
    @Test func nestingDeeperThanTheLimitIsAnError() throws {
        let limit = YAMLReader.maximumDepth
        let message = "lists and mappings nest more than \(limit) levels deep here; scenario files need far fewer"
        // The root mapping is level 1, so `a:` can hold `limit - 1` nested flow lists.
        let allowed = "a: " + String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit - 1)
        #expect(try parse(allowed).value(forKey: "a")?.sequenceItems?.count == 1)
        for brackets in [limit, 10_000] {
            let text = "a: " + String(repeating: "[", count: brackets) + String(repeating: "]", count: brackets)
            #expect(throws: YAMLError(location: SourceLocation(line: 1, column: 3 + limit), message: message)) {
                try YAMLReader.parse(text)
            }
        }
        // Block mappings: line n + 1 is `kn:` indented n spaces; the key on line `limit + 1` is one level too deep.
        for keys in [limit + 1, 1_000] {
            let text = (0..<keys).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n") + " x\n"
            #expect(throws: YAMLError(location: SourceLocation(line: limit + 1, column: limit + 1), message: message)) {
                try YAMLReader.parse(text)
            }
        }
    }

    @Test(arguments: rejections)
    func rejects(name: String, text: String, message: String) {
        do {
            let node = try YAMLReader.parse(text)
            Issue.record("\(name): expected an error, parsed \(node)")
        } catch {
            #expect(error.description == message, "\(name)")
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func renderedTreesParseBack(seed: UInt64) throws {
        var random = RandomSource(seed: seed)
        func word() -> String {
            String(
                (0..<random.nextInt(in: 1...6)).map { _ in
                    Character(Unicode.Scalar(UInt8(random.nextInt(in: 97...122))))
                })
        }
        func tree(_ depth: Int) -> YAMLNode.Kind {
            switch random.nextInt(in: 0...(depth > 2 ? 0 : 2)) {
            case 0: return .scalar(YAMLScalar(text: word(), style: .plain))
            case 1:
                return .sequence(
                    (0..<random.nextInt(in: 1...3)).map { _ in
                        YAMLNode(kind: tree(depth + 1), location: SourceLocation(line: 0, column: 0))
                    })
            default:
                var keys: Set<String> = []
                var entries: [YAMLMappingEntry] = []
                for _ in 0..<random.nextInt(in: 1...3) {
                    let key = word()
                    guard keys.insert(key).inserted else { continue }
                    entries.append(
                        YAMLMappingEntry(
                            key: YAMLNode(
                                kind: .scalar(YAMLScalar(text: key, style: .plain)),
                                location: SourceLocation(line: 0, column: 0)),
                            value: YAMLNode(kind: tree(depth + 1), location: SourceLocation(line: 0, column: 0))))
                }
                return .mapping(entries)
            }
        }
        func render(_ kind: YAMLNode.Kind, _ indent: Int) -> String {
            let pad = String(repeating: " ", count: indent)
            switch kind {
            case .scalar(let s): return " " + s.text + "\n"
            case .sequence(let items): return "\n" + items.map { pad + "-" + render($0.kind, indent + 2) }.joined()
            case .mapping(let entries):
                return "\n"
                    + entries.map { pad + $0.key.scalarText! + ":" + render($0.value.kind, indent + 2) }.joined()
            }
        }
        func strip(_ kind: YAMLNode.Kind) -> String {
            switch kind {
            case .scalar(let s): return s.text
            case .sequence(let items): return "[" + items.map { strip($0.kind) }.joined(separator: ",") + "]"
            case .mapping(let entries):
                return "{" + entries.map { $0.key.scalarText! + ":" + strip($0.value.kind) }.joined(separator: ",")
                    + "}"
            }
        }
        for _ in 0..<100 {
            var entries: [YAMLMappingEntry] = []
            if case .mapping(let e) = tree(1) { entries = e }
            if entries.isEmpty { continue }
            let kind = YAMLNode.Kind.mapping(entries)
            let text = String(render(kind, 0).drop(while: { $0 == "\n" }))
            let parsed = try YAMLReader.parse(text)
            #expect(strip(parsed.kind) == strip(kind), "seed \(seed):\n\(text)")
        }
    }
}

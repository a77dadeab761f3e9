import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

/// docs/server.md's "The state answer" table against docs/server-control.openapi.yaml's `State` schema and against
/// a live answer of `GET /simctl/v1/state`: the same members, `bundleId` at the top level, no `app` object.
@Suite struct StateAnswerDocsTests {
    /// The table's rows: the member path of the first column (`customers[].entitlements`) and the identifiers in
    /// code spans of the second.
    static func documentedRows() throws -> [(path: String, mentioned: [String])] {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/server.md", encoding: .utf8)
        let start = try #require(text.range(of: "### The state answer\n"))
        let rest = text[start.upperBound...]
        let section = rest.components(separatedBy: "\n### ")[0]
        var rows: [(path: String, mentioned: [String])] = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let path = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let spans = cells[2].components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            rows.append((path, spans.filter { !$0.isEmpty && $0.allSatisfy { $0.isLetter } }))
        }
        return rows
    }

    /// The property names of an OpenAPI schema node (`properties:`).
    static func properties(_ node: YAMLNode?) -> Set<String> {
        Set((node?.value(forKey: "properties")?.mappingEntries ?? []).compactMap { $0.key.scalarText })
    }

    static func keys(_ value: JSONValue?) -> Set<String> {
        if case .object(let members)? = value { return Set(members.keys) }
        return []
    }

    @Test func theTableTheSchemaAndALiveAnswerAgree() throws {
        let rows = try Self.documentedRows()
        let topLevel = Set(rows.map(\.path).filter { !$0.contains("[]") })
        let customerMembers = Set(
            rows.map(\.path).filter { $0.hasPrefix("customers[].") }.map { String($0.dropFirst("customers[].".count)) })
        let subscriptionMembers = Set(try #require(rows.first { $0.path == "customers[].subscriptions" }).mentioned)
        let transactionMembers = Set(try #require(rows.first { $0.path == "customers[].transactions" }).mentioned)
        #expect(topLevel.contains("bundleId") && topLevel.contains("environment") && !topLevel.contains("app"))

        // The OpenAPI file: State is Clock (its required members) and the State object's properties.
        let openAPI = try YAMLReader.parse(
            try String(contentsOfFile: repositoryRoot + "/docs/server-control.openapi.yaml", encoding: .utf8))
        let schemas = try #require(openAPI.value(forKey: "components")?.value(forKey: "schemas"))
        let clockRequired = Set(
            (schemas.value(forKey: "Clock")?.value(forKey: "required")?.sequenceItems ?? []).compactMap(\.scalarText))
        let parts = try #require(schemas.value(forKey: "State")?.value(forKey: "allOf")?.sequenceItems)
        let stateObject = try #require(parts.first { $0.value(forKey: "properties") != nil })
        #expect(topLevel == clockRequired.union(Self.properties(stateObject)))
        let customers = stateObject.value(forKey: "properties")?.value(forKey: "customers")?.value(forKey: "items")
        #expect(customerMembers == Self.properties(customers))
        let customerProperties = customers?.value(forKey: "properties")
        #expect(
            subscriptionMembers
                == Self.properties(customerProperties?.value(forKey: "subscriptions")?.value(forKey: "items")))
        #expect(
            transactionMembers
                == Self.properties(customerProperties?.value(forKey: "transactions")?.value(forKey: "items")))

        // A live answer, with a timeline entry left (so nextTimelineEntry is present) and a purchase made.
        let scenario = familyServeScenario.replacingOccurrences(
            of: "timeline: []",
            with: "timeline:\n  - { at: 0, purchase: { customer: alice, product: \(familyProduct) } }\n"
                + "  - { at: P2M, cancel: { customer: alice, product: \(familyProduct) } }")
        let server = try makeServer(scenario: scenario)
        let state = server.stateJSON()
        // `nextAfter` is there only when customers follow the page (`StatePagingTests`).
        #expect(Self.keys(state) == topLevel.subtracting(["nextAfter"]))
        #expect(state.value(at: "bundleId") == .string("com.example.nightsky"))
        #expect(state.value(at: "app") == nil)
        guard case .array(let list)? = state.value(at: "customers"), let alice = list.first else {
            Issue.record("no customers in \(state)")
            return
        }
        #expect(Self.keys(alice) == customerMembers)
        guard case .array(let subscriptions)? = alice.value(at: "subscriptions"),
            case .array(let transactions)? = alice.value(at: "transactions"), let first = subscriptions.first,
            let transaction = transactions.first
        else {
            Issue.record("no subscription or transaction for alice in \(alice)")
            return
        }
        #expect(Self.keys(first) == subscriptionMembers)
        // Optional members (appAccountToken, finished, consumptionInformation) appear only once set.
        #expect(Self.keys(transaction).isSubset(of: transactionMembers))
        #expect(Self.keys(transaction).isSuperset(of: ["transactionId", "productId", "orderId"]))
    }
}

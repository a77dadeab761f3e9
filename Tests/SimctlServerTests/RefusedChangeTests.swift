import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

/// A control call answered 409 changes nothing (docs/reliability.md, "Refused changes"): the state, the deliveries,
/// the picture and what the webhook received are byte for byte as before, for every refusal path, including a run
/// limit hit in the middle of an advance.
@Suite struct RefusedChangeTests {
    /// Everything a client can observe of the server, as bytes, plus how many requests the webhook got.
    static func snapshot(_ server: SimulatorServer, _ transport: RecordingTransport?) -> [String] {
        [
            server.get("/simctl/v1/state", token: nil).bodyText,
            server.get("/simctl/v1/deliveries", token: nil).bodyText,
            server.get("/simctl/v1/timeline.svg", token: nil).bodyText,
            server.get("/simctl/v1/state", query: [(name: "customer", value: "alice")], token: nil).bodyText,
            "requests delivered: \(transport?.requests.count ?? -1)",
        ]
    }

    /// alice buys the family plan at the start; the timeline cancels for bob (who has nothing to cancel) after 40
    /// days, an entry the rules refuse.
    static let refusedEntryScenario = familyServeScenario.replacingOccurrences(
        of: "timeline: []",
        with: """
            timeline:
              - at: 0
                purchase: { customer: alice, product: \(familyProduct) }
              - at: 40d
                refund: { customer: carol, product: \(familyProduct) }
            """)

    static let purchasedScenario = familyServeScenario.replacingOccurrences(
        of: "timeline: []",
        with: "timeline:\n  - at: 0\n    purchase: { customer: alice, product: \(familyProduct) }")

    /// Each refusal path: the scenario, the calls made before (answered 200), and the refused call.
    static let paths: [(name: String, scenario: String, setup: [(String, String)], refused: (String, String))] = [
        (
            "10,000 renewals hit in the middle of an advance", purchasedScenario,
            [("/simctl/v1/advance", #"{"by": "P1M"}"#)],
            ("/simctl/v1/advance", #"{"by": "P1000Y"}"#)
        ),
        (
            "a timeline entry the rules refuse on the way", refusedEntryScenario, [],
            ("/simctl/v1/advance", #"{"by": "P2M"}"#)
        ),
        (
            "an action whose later `at` crosses a refused timeline entry", refusedEntryScenario, [],
            ("/simctl/v1/actions", #"{"at": "60d", "cancel": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        ),
        (
            "an action refused after its later `at` (nothing to cancel)", familyServeScenario, [],
            ("/simctl/v1/actions", #"{"at": "20d", "cancel": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        ),
        (
            "an action the rules refuse now", purchasedScenario, [("/simctl/v1/advance", #"{"by": "3d"}"#)],
            ("/simctl/v1/actions", #"{"resume": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        ),
        (
            "an action whose later `at` hits 10,000 renewals", purchasedScenario, [],
            (
                "/simctl/v1/actions",
                #"{"at": "P1000Y", "cancel": {"customer": "alice", "product": "\#(familyProduct)"}}"#
            )
        ),
    ]

    @Test(arguments: paths.indices, [true, false])
    func aRefusedCallLeavesEverythingByteIdentical(path: Int, delivering: Bool) throws {
        let (name, scenario, setup, refused) = Self.paths[path]
        let transport = delivering ? RecordingTransport() : nil
        let server = try makeServer(transport: transport, scenario: scenario)
        for (route, body) in setup {
            let answer = server.control(route, body)
            #expect(answer.status == 200, "\(name): \(route) \(body): \(answer.bodyText)")
        }
        let before = Self.snapshot(server, transport)
        let answer = server.control(refused.0, refused.1)
        #expect(answer.status == 409, "\(name): \(answer.bodyText)")
        #expect(answer.json.value(at: "error")?.stringValue?.isEmpty == false, "\(name)")
        let after = Self.snapshot(server, transport)
        #expect(after == before, "\(name)")
        // The same call again gets the same answer: the refusal did not move anything that would change it.
        #expect(server.control(refused.0, refused.1).bodyText == answer.bodyText, "\(name)")
    }

    /// The renewal limit: the advance that would pass it is refused with the limit's message and the clock where it
    /// was; an advance that stays below it is made, and one more is refused again.
    @Test func anAdvancePastTheRenewalLimitIsRefusedAndAShorterOneIsMade() throws {
        let server = try makeServer(scenario: Self.purchasedScenario)
        let at = server.stateJSON().value(at: "at")
        let refused = server.control("/simctl/v1/advance", #"{"by": "P1000Y"}"#)
        #expect(refused.status == 409)
        let error = try #require(refused.json.value(at: "error")?.stringValue)
        #expect(error.contains("10000") || error.contains("10,000"), "\(error)")
        #expect(error.contains("nothing changed"), "\(error)")
        #expect(refused.json.value(at: "at") == at)
        #expect(refused.json.value(at: "notificationsSent") == .integer(0))
        #expect(server.stateJSON().value(at: "at") == at)
        let made = server.control("/simctl/v1/advance", #"{"by": "P10Y"}"#)
        #expect(made.status == 200, "\(made.bodyText)")
        #expect(made.json.value(at: "at") == .string("2036-03-01T09:00:00Z"))
    }

    /// Without a transport the trial's copy becomes the store: the answer and the state are those of the same advance
    /// made with delivery (which is made again, instant by instant).
    @Test func anAdvanceWithoutDeliveryEqualsOneWithDelivery() throws {
        let plain = try makeServer(transport: nil, scenario: Self.purchasedScenario)
        let delivering = try makeServer(scenario: Self.purchasedScenario)
        for body in [#"{"by": "P1M"}"#, #"{"by": "45d"}"#, #"{"to": "2027-01-01T00:00:00Z"}"#] {
            let a = plain.control("/simctl/v1/advance", body).json
            let b = delivering.control("/simctl/v1/advance", body).json
            #expect(a.value(at: "at") == b.value(at: "at"))
            #expect(a.value(at: "notificationsSent") == b.value(at: "notificationsSent"))
            #expect(a.value(at: "timelineEntriesApplied") == b.value(at: "timelineEntriesApplied"))
        }
        #expect(plain.stateJSON().value(at: "digest") != nil)
        #expect(
            plain.get("/simctl/v1/timeline.svg", token: nil).bodyText
                == delivering.get("/simctl/v1/timeline.svg", token: nil).bodyText)
        #expect(plain.stateJSON().value(at: "customers") == delivering.stateJSON().value(at: "customers"))
    }
}

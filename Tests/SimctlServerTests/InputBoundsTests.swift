import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

/// Strings that would grow the store and every answer that shows them are bounded (docs/reliability.md, "Bounds"):
/// a control action with a 900 KB customer name is 400 naming the limit, and changes nothing; the same name in a
/// scenario file is a located error.
@Suite struct InputBoundsTests {
    static let longName = String(repeating: "n", count: 900 * 1024)

    @Test func a900KBCustomerNameIsRefusedWith400NamingTheLimit() throws {
        let server = try makeServer()
        let before = server.get("/simctl/v1/state", token: nil).bodyText
        let body = #"{"purchase": {"customer": "\#(Self.longName)", "product": "\#(familyProduct)"}}"#
        let answer = server.control("/simctl/v1/actions", body)
        #expect(answer.status == 400)
        let error = try #require(answer.json.value(at: "error")?.stringValue)
        #expect(error.contains("at most \(ScenarioDecoder.maximumTextBytes) bytes"), "\(error.prefix(300))")
        #expect(error.contains("found \(900 * 1024) bytes"))
        #expect(error.utf8.count < 2048, "the answer does not echo the name")
        #expect(server.get("/simctl/v1/state", token: nil).bodyText == before)
        // A name at the limit is taken.
        let atLimit = String(repeating: "m", count: ScenarioDecoder.maximumTextBytes)
        let taken = server.control(
            "/simctl/v1/actions", #"{"purchase": {"customer": "\#(atLimit)", "product": "\#(familyProduct)"}}"#)
        #expect(taken.status == 200, "\(taken.bodyText.prefix(300))")
    }

    @Test func aLongCustomerNameInAScenarioFileIsALocatedError() throws {
        let text = familyServeScenario.replacingOccurrences(
            of: "timeline: []",
            with: "timeline:\n  - at: 0\n    purchase: { customer: \(Self.longName), product: \(familyProduct) }")
        do {
            _ = try decodeScenario(text, file: "long.yaml")
            Issue.record("a 900 KB customer name was accepted")
        } catch let error as ScenarioError {
            let shown = error.description
            // file:line:column of the name, then the message.
            #expect(shown.range(of: #"^long\.yaml:[0-9]+:[0-9]+: error: "#, options: .regularExpression) != nil)
            #expect(shown.contains("expected `customer` of at most 1024 bytes (UTF-8), found 921600 bytes"))
        }
    }
}

import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

@Suite struct ControlAPITests {
    /// The decoder's message for a timeline entry written in YAML in a scenario file.
    func scenarioMessage(_ entry: String) -> String? {
        let text = familyServeScenario.replacingOccurrences(of: "timeline: []", with: "timeline:\n  - \(entry)")
        do {
            _ = try decodeScenario(text)
            return nil
        } catch let error as ScenarioError { return error.message } catch { return nil }
    }

    @Test func badActionsGetTheScenarioDecodersMessages() throws {
        let server = try makeServer()
        let cases: [(json: String, yaml: String)] = [
            (
                #"{"purchse": {"customer": "alice", "product": "\#(familyProduct)"}}"#,
                "{ at: 0, purchse: { customer: alice, product: \(familyProduct) } }"
            ),
            (
                #"{"purchase": {"customer": "alice", "product": "nope"}}"#,
                "{ at: 0, purchase: { customer: alice, product: nope } }"
            ),
            (#"{"purchase": {"customer": "alice"}}"#, "{ at: 0, purchase: { customer: alice } }"),
            (
                #"{"cancel": {"customer": "alice", "product": "\#(familyProduct)", "extra": 1}}"#,
                "{ at: 0, cancel: { customer: alice, product: \(familyProduct), extra: 1 } }"
            ),
            (#"{"failBilling": "alice"}"#, "{ at: 0, failBilling: alice }"),
            (
                #"{"refund": {"customer": "alice", "product": "\#(familyProduct)", "reason": 7}}"#,
                "{ at: 0, refund: { customer: alice, product: \(familyProduct), reason: 7 } }"
            ),
            (
                #"{"shareWithFamily": {"customer": "alice", "enabled": "maybe"}}"#,
                "{ at: 0, shareWithFamily: { customer: alice, enabled: maybe } }"
            ),
            (
                #"{"at": "yesterday", "fixBilling": {"customer": "alice"}}"#,
                "{ at: yesterday, fixBilling: { customer: alice } }"
            ),
            (
                #"{"failBilling": {"customer": "alice"}, "fixBilling": {"customer": "alice"}}"#,
                "{ at: 0, failBilling: { customer: alice }, fixBilling: { customer: alice } }"
            ),
            (#"{}"#, "{ at: 0 }"),
        ]
        for (json, yaml) in cases {
            let response = server.control("/simctl/v1/actions", json)
            #expect(response.status == 400, "\(json)")
            let expected = try #require(scenarioMessage(yaml), "\(yaml) decodes")
            #expect(response.json.value(at: "error") == .string(expected), "\(json)")
        }
    }

    @Test func anActionTheRulesForbidIs409AndChangesNothing() throws {
        let server = try makeServer()
        let before = server.stateJSON()
        let response = server.control(
            "/simctl/v1/actions", #"{"cancel": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        #expect(response.status == 409)
        #expect(
            response.json.value(at: "error")?.stringValue?.hasPrefix("cancel at 2026-03-01T09:00:00Z cannot happen:")
                == true)
        #expect(server.stateJSON() == before)
    }

    @Test func advanceByADurationOrToAnInstantRunsTheTimeline() throws {
        let scenario = familyServeScenario.replacingOccurrences(
            of: "timeline: []",
            with:
                "timeline:\n  - at: 0\n    purchase: { customer: alice, product: \(familyProduct) }\n  - at: 20d\n    failBilling: { customer: alice }"
        )
        let server = try makeServer(scenario: scenario)
        #expect(server.stateJSON().value(at: "notificationsSent") == .integer(1))
        #expect(server.stateJSON().value(at: "nextTimelineEntry.action") == .string("failBilling"))
        let by = server.control("/simctl/v1/advance", #"{"by": "P1M"}"#)
        #expect(by.status == 200)
        #expect(by.json.value(at: "at") == .string("2026-04-01T09:00:00Z"))
        #expect(by.json.value(at: "timelineEntriesApplied") == .integer(1))
        // bob's share (1 h) and the renewal failure of both, each delivered at its first attempt.
        #expect(by.json.value(at: "notificationsSent") == .integer(3))
        #expect(by.json.value(at: "deliveryAttempts") == .integer(3))
        let to = server.control("/simctl/v1/advance", #"{"to": "2026-05-01T00:00:00Z"}"#)
        #expect(to.json.value(at: "at") == .string("2026-05-01T00:00:00Z"))
        for bad in [
            #"{"by": "soon"}"#, #"{"to": "2026-01-01T00:00:00Z"}"#, #"{"by": "1d", "to": "2027-01-01T00:00:00Z"}"#,
            #"{"when": "1d"}"#, "[1]", "{", #"{"by": 5}"#, #"{"by": "P9999Y"}"#,
        ] {
            #expect(server.control("/simctl/v1/advance", bad).status == 400, "\(bad)")
        }
    }

    @Test func resetGoesBackToTheStart() throws {
        let server = try makeServer()
        let start = server.stateJSON()
        _ = server.control(
            "/simctl/v1/actions", #"{"purchase": {"customer": "carol", "product": "\#(familyProduct)"}}"#)
        _ = server.control("/simctl/v1/advance", #"{"by": "P3M"}"#)
        #expect(server.stateJSON() != start)
        // `same`: the start exactly as it was (the default reset moves to the next epoch, DeliveryCallbackTests).
        #expect(server.control("/simctl/v1/reset", #"{"epoch": "same"}"#).status == 200)
        #expect(server.stateJSON() == start)
    }

    @Test func unknownPathsAre404AndWrongMethods405() throws {
        let server = try makeServer()
        #expect(server.control("/simctl/v1/nope").status == 404)
        #expect(server.get("/inApps/v1/nope").status == 404)
        let wrong = server.handle(ServerRequest(method: "DELETE", path: "/simctl/v1/state"))
        #expect(wrong.status == 405)
        #expect(wrong.headers.contains(ServerHeader(name: "Allow", value: "GET")))
        #expect(server.handle(ServerRequest(method: "GET", path: "/simctl/v1/advance")).status == 405)
    }

    /// `GET /simctl/v1/timeline.svg`: the picture of the store so far (the `svg` format), drawn up to the clock.
    @Test func timelinePictureShowsTheStoreSoFar() throws {
        let server = try makeServer()
        let empty = server.get("/simctl/v1/timeline.svg", token: nil)
        #expect(empty.status == 200)
        #expect(empty.headers.contains { $0.name == "Content-Type" && $0.value.hasPrefix("image/svg+xml") })
        #expect(empty.bodyText.contains(">alice</text>") && empty.bodyText.contains(">bob</text>"))
        #expect(!empty.bodyText.contains("SUBSCRIBED"))
        let bought = server.control(
            "/simctl/v1/actions", #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        #expect(bought.status == 200, "\(bought.bodyText)")
        #expect(server.control("/simctl/v1/advance", #"{"by": "2h"}"#).status == 200)
        let picture = server.get("/simctl/v1/timeline.svg", token: nil)
        #expect(picture.status == 200)
        let svg = picture.bodyText
        #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("SUBSCRIBED INITIAL_BUY · ") && svg.contains("· bob · "))
        #expect(svg.contains("family delay 1h"))
        #expect(svg.contains("now 2026-03-01T11:00:00Z") && svg.contains(">now</text>"), "the clock, said and drawn")
        #expect(server.get("/simctl/v1/timeline.svg", token: nil).bodyText == svg, "same store, same bytes")
        // The same picture as `simctl run --format svg` of the same story, once the clock is at the run's end.
        let text = familyServeScenario.replacingOccurrences(
            of: "timeline: []",
            with: "timeline:\n  - { at: 0, purchase: { customer: alice, product: \(familyProduct) } }\nuntil: P2M")
        let run = try ScenarioRunner.run(try decodeScenario(text))
        #expect(server.control("/simctl/v1/advance", #"{"to": "2026-05-01T09:00:00Z"}"#).status == 200)
        var drawn = TimelinePicture(scenario: run.scenario)
        drawn.add(run.store.notifications[...], run.store.entitlementChanges[...])
        #expect(
            server.get("/simctl/v1/timeline.svg", token: nil).bodyText
                == drawn.svg(until: run.scenario.until, now: run.scenario.until))
        // The query chooses customers, a window and the axis; anything else is a 400 that says what it takes.
        let chosen = server.get(
            "/simctl/v1/timeline.svg",
            query: [("customers", "bob"), ("from", "1h"), ("to", "P1M"), ("axis", "offsets")],
            token: nil)
        #expect(
            chosen.status == 200 && chosen.bodyText.contains(">bob</text>")
                && !chosen.bodyText.contains(">alice</text>"))
        #expect(chosen.bodyText.contains("window 2026-03-01T10:00:00Z to 2026-04-01T09:00:00Z"))
        for (query, message) in [
            ([("width", "2")], "unknown query parameter 'width'; timeline.svg takes customers"),
            ([("customers", "zed")], "query parameter 'customers' no customer 'zed'"),
            ([("from", "soon")], "query parameter 'from' needs an offset"),
            ([("from", "2d"), ("to", "1d")], "query parameter 'to' must be later"),
            ([("axis", "x")], "query parameter 'axis' needs dates or offsets"),
            ([("axis", "dates"), ("axis", "dates")], "query parameter 'axis' is given twice"),
        ] {
            let answer = server.get("/simctl/v1/timeline.svg", query: query, token: nil)
            #expect(answer.status == 400 && answer.bodyText.contains(message), "\(query): \(answer.bodyText)")
        }
    }

    @Test func everyPathInTheOpenAPIFileIsServedAndViceVersa() throws {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/server-control.openapi.yaml", encoding: .utf8)
        let root = try YAMLReader.parse(text)
        #expect(root.value(forKey: "openapi")?.scalarText?.hasPrefix("3.") == true)
        let paths = try #require(root.value(forKey: "paths")?.mappingEntries)
        var documented: Set<String> = []
        for entry in paths {
            let path = try #require(entry.key.scalarText)
            for method in entry.value.mappingEntries ?? [] {
                guard let name = method.key.scalarText, ["get", "post", "put", "delete"].contains(name) else {
                    continue
                }
                #expect(method.value.value(forKey: "responses") != nil, "\(name) \(path) has responses")
                // A `{parameter}` segment is the routes' `*`.
                let pattern = path.split(separator: "/", omittingEmptySubsequences: false).map {
                    $0.hasPrefix("{") && $0.hasSuffix("}") ? "*" : String($0)
                }.joined(separator: "/")
                documented.insert(name.uppercased() + " " + pattern)
            }
        }
        let served = Set(
            SimulatorServer.servedPaths.filter { $0.path.hasPrefix("/simctl/") }.map { $0.method + " " + $0.path })
        #expect(documented == served)
    }
}

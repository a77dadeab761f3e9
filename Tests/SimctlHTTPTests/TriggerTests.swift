import Foundation
import SimctlCommand
import SimctlHTTP
import SubscriptionSimulator
import Testing

/// `simctl trigger KIND` and `simctl replay`: every kind, its scenario, its delivery (issue 45).
@Suite struct TriggerTests {
    static let kinds = TriggerLifecycles.kinds

    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("simctl-trigger-\(UUIDText.next())\(suffix)").path
    }

    /// The payload of a jsonl line, decoded.
    static func payload(_ line: String) throws -> JSONValue {
        let item = try DeliveryItem(replaying: line.hasSuffix("\n") ? String(line.dropLast()) : line)
        return try JWS.decodePayload(item.signedPayload)
    }

    static func kind(of payload: JSONValue) -> String {
        (payload.value(at: "notificationType")?.stringValue ?? "?")
            + (payload.value(at: "subtype")?.stringValue.map { "/" + $0 } ?? "")
    }

    @Test func theListHasEveryKindOnceWithALine() {
        let output = Simctl.main(["trigger", "--list"])
        #expect(output.exitCode == 0)
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count == Self.kinds.count && Set(Self.kinds).count == Self.kinds.count)
        for (line, kind) in zip(lines, Self.kinds) {
            #expect(line.hasPrefix(kind + " ") && line.count > kind.count + 10, "\(line)")
        }
        // Every kind the scenarios of this project show (NotificationCoverageTests' 31) and OFFER_REDEEMED/DOWNGRADE.
        #expect(Self.kinds.count == 32)
        for required in ["REFUND", "REVOKE", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "SUBSCRIBED/RESUBSCRIBE", "TEST"] {
            #expect(Self.kinds.contains(required))
        }
    }

    @Test(arguments: kinds) func emitsExactlyOneNotificationOfItsKind(kind: String) throws {
        let output = Simctl.main(["trigger", kind])
        #expect(output.exitCode == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line and its newline")
        #expect(Self.kind(of: try Self.payload(String(lines[0]))) == kind)
        let decoded = Simctl.main(["trigger", kind.lowercased(), "--format", "decoded"])
        #expect(decoded.exitCode == 0)
        let object = try CanonicalJSON.parse(decoded.stdout)
        #expect(Self.kind(of: object.value(at: "payload")!) == kind, "kinds are read in any case")
    }

    /// The printed scenario is an ordinary scenario file: `simctl run` of it sends the same notification, last (the
    /// FAILURE of a mass extension is followed by the developer's SUMMARY at the same instant).
    @Test(arguments: kinds) func printScenarioRunsToTheSameNotification(kind: String) throws {
        let line = Simctl.main(["trigger", kind, "--seed", "7"]).stdout
        let printed = Simctl.main(["trigger", kind, "--seed", "7", "--print-scenario"])
        #expect(printed.exitCode == 0 && printed.stdout.hasPrefix("# simctl trigger \(kind): "))
        let file = Self.temporaryPath(".yaml")
        try printed.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = Simctl.main(["run", file, "--format", "jsonl"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { String($0) + "\n" }
        if kind == "RENEWAL_EXTENSION/FAILURE" {
            #expect(lines.dropLast().last == line)
            #expect(Self.kind(of: try Self.payload(lines.last!)) == "RENEWAL_EXTENSION/SUMMARY")
        } else {
            #expect(lines.last == line)
        }
        #expect(Simctl.main(["trigger", kind, "--seed", "7", "--all"]).stdout == run.stdout, "--all is the run")
    }

    @Test func aNearMissGetsASuggestionAndTheKindsOfItsType() {
        let near = Simctl.main(["trigger", "REFUDN"])
        #expect(near.exitCode == 64 && near.stderr.contains("did you mean 'REFUND'?"))
        let subtype = Simctl.main(["trigger", "EXPIRED/NOPE"])
        #expect(subtype.exitCode == 64 && subtype.stderr.contains("EXPIRED/VOLUNTARY, EXPIRED/BILLING_RETRY"))
        let none = Simctl.main(["trigger"])
        #expect(none.exitCode == 64 && none.stderr.contains("needs a notification kind"))
        let option = Simctl.main(["trigger", "REFUND", "--bundle"])
        #expect(option.exitCode == 64 && option.stderr.contains("did you mean '--bundle-id'?"))
        #expect(Simctl.main(["trigger", "REFUND", "--format", "svg"]).exitCode == 64)
        #expect(
            Simctl.main(["trigger", "REFUND", "--environment", "Sandbx"]).stderr.contains("did you mean 'Sandbox'?"))
        #expect(
            Simctl.main(["trigger", "REFUND", "--deliver-mode", "sandbox"]).stderr.contains("needs '--deliver URL'"))
        #expect(Simctl.main(["help", "trigger"]).stdout.contains("simctl trigger --list"))
        #expect(Simctl.main(["help"]).stdout.contains("trigger KIND"))
    }

    @Test func theOptionsMakeItTheUsersOwn() throws {
        let output = Simctl.main([
            "trigger", "REFUND", "--environment", "Production", "--bundle-id", "org.example.mine", "--app-apple-id",
            "42", "--product", "org.example.mine.pro", "--customer", "bea", "--storefront", "FRA", "--seed", "9",
            "--format", "decoded",
        ])
        #expect(output.exitCode == 0, "\(output.stderr)")
        let object = try CanonicalJSON.parse(output.stdout)
        #expect(object.value(at: "recipient")?.stringValue == "bea")
        let data = object.value(at: "payload.data")!
        #expect(data.value(at: "environment")?.stringValue == "Production")
        #expect(data.value(at: "bundleId")?.stringValue == "org.example.mine")
        #expect(data.value(at: "appAppleId")?.integerValue == 42)
        #expect(data.value(at: "signedTransactionInfo.productId")?.stringValue == "org.example.mine.pro")
        #expect(data.value(at: "signedTransactionInfo.storefront")?.stringValue == "FRA")
        let other = try CanonicalJSON.parse(Simctl.main(["trigger", "REFUND", "--format", "decoded"]).stdout)
        #expect(object.value(at: "payload.notificationUUID") != other.value(at: "payload.notificationUUID"))
        #expect(other.value(at: "payload.data.environment")?.stringValue == "Sandbox", "Sandbox by default")
        #expect(Simctl.main(["trigger", "REFUND"]).stdout == Simctl.main(["trigger", "REFUND"]).stdout)
        let coins = try CanonicalJSON.parse(
            Simctl.main(["trigger", "ONE_TIME_CHARGE", "--product", "gems", "--format", "decoded"]).stdout)
        #expect(coins.value(at: "payload.data.signedTransactionInfo.productId")?.stringValue == "gems")
    }

    @Test func aScenarioGivesItsAppAndCatalogue() throws {
        let file = DeliveryEndToEndTests.root.appendingPathComponent("Scenarios/offer-for-another-product.yaml").path
        let output = Simctl.main([
            "trigger", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "--scenario", file, "--format", "decoded",
        ])
        #expect(output.exitCode == 0, "\(output.stderr)")
        let object = try CanonicalJSON.parse(output.stdout)
        #expect(object.value(at: "payload.data.bundleId")?.stringValue == "com.example.nightsky")
        #expect(
            object.value(at: "payload.data.signedRenewalInfo.autoRenewProductId")?.stringValue
                == "com.example.nightsky.plus.monthly")
        let chosen = Simctl.main([
            "trigger", "REFUND", "--scenario", file, "--product", "com.example.nightsky.basic.monthly", "--format",
            "decoded",
        ])
        #expect(chosen.stdout.contains("\"productId\":\"com.example.nightsky.basic.monthly\""))
        let missing = Simctl.main(["trigger", "REFUND", "--scenario", file, "--product", "com.example.nightsky.basic"])
        #expect(missing.exitCode == 65 && missing.stderr.contains("did you mean 'com.example.nightsky.basic.monthly'?"))
        let test = DeliveryEndToEndTests.root.appendingPathComponent("Scenarios/test-notification.yaml").path
        let noOffer = Simctl.main(["trigger", "OFFER_REDEEMED", "--scenario", test])
        #expect(noOffer.exitCode == 65 && noOffer.stderr.contains("needs a promotional offer"))
        #expect(Simctl.main(["trigger", "REFUND", "--scenario", "/nonexistent.yaml"]).exitCode == 66)
    }

    // MARK: delivery

    @Test func deliveredBodyIsTheJSONLLineAndRetriesAsRunDoes() throws {
        let counts = Counter()
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return counts.increment(message.body) <= 2
                ? .respond(status: 503, body: "busy\nnow") : .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let log = Self.temporaryPath(".jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = Simctl.main(["trigger", "REVOKE", "--deliver", receiver.url(path: "/asn"), "--delivery-log", log])
        #expect(output.exitCode == 0, "\(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("1 of 1 notifications delivered in 3 attempts"))
        let line = Simctl.main(["trigger", "REVOKE"]).stdout
        #expect(seen.bodies == Array(repeating: String(line.dropLast()), count: 3))
        let entries = try DeliveryEndToEndTests.log(log)
        #expect(entries.map { $0["httpStatus"] as? Int } == [503, 503, 200])
        #expect(entries.map { $0["responseStart"] as? String } == ["busy\\nnow", "busy\\nnow", nil])
        #expect(entries.allSatisfy { $0["notificationType"] as? String == "REVOKE" })
    }

    @Test func aRefusingEndpointShowsItsStatusAndBodyStart() throws {
        let long = "bad signature: " + String(repeating: "é", count: 150)
        let receiver = try LoopbackReceiver { _ in .respond(status: 400, body: long) }
        defer { receiver.stop() }
        let output = Simctl.main(["trigger", "REFUND", "--deliver", receiver.url(), "--deliver-mode", "sandbox"])
        #expect(output.exitCode == 2)
        let start = DeliveryOutcome.responseStart(of: Array(long.utf8))!
        #expect(start.utf8.count == 199 && long.hasPrefix(start), "200 bytes, a cut character dropped")
        #expect(output.stderr.contains("  last answer: HTTP 400: \(start)\n"), "\(output.stderr)")
        let file = DeliveryEndToEndTests.root.appendingPathComponent("Scenarios/test-notification.yaml").path
        let run = Simctl.main(["run", file, "--deliver", receiver.url(), "--deliver-mode", "sandbox"])
        #expect(run.exitCode == 2 && run.stderr.contains("last answer: HTTP 400: bad signature"))
        #expect(DeliveryOutcome.responseStart(of: [UInt8]()) == nil)
        #expect(DeliveryOutcome.responseStart(of: Array("a\u{1}b".utf8)) == "a\\u{1}b")
    }

    @Test func tamperSendsTheAlteredPayloadFixture() throws {
        let seen = Recorder()
        let accepting = try LoopbackReceiver { message in
            seen.add(message)
            return .respond(status: 200, body: "")
        }
        defer { accepting.stop() }
        let accepted = Simctl.main(["trigger", "REFUND", "--tamper", "--deliver", accepting.url()])
        #expect(accepted.exitCode == 3 && accepted.stderr.contains("is your verifier on"), "\(accepted.stderr)")
        // The REFUND with its payload changed after signing: not the signed line, still a REFUND.
        let body = seen.bodies.first ?? ""
        #expect(body != String(Simctl.main(["trigger", "REFUND"]).stdout.dropLast()))
        #expect(Self.kind(of: try Self.payload(body)) == "REFUND")
        #expect(Simctl.main(["trigger", "REFUND", "--tamper"]).stdout == body + "\n")
        let refusing = try LoopbackReceiver { _ in .respond(status: 401, body: "VERIFICATION_FAILURE") }
        defer { refusing.stop() }
        let refused = Simctl.main(["trigger", "REFUND", "--tamper", "--deliver", refusing.url()])
        #expect(refused.exitCode == 0 && refused.stderr.contains("was refused, as a verifying endpoint should"))
        let local = Simctl.main(["trigger", "REFUND", "--tamper", "--environment", "LocalTesting"])
        #expect(local.exitCode == 64 && local.stderr.contains("needs environment Sandbox or Production"))
    }

    @Test func replayResendsAFixtureFolderAndAStreamByteForByte() throws {
        let scenario = DeliveryEndToEndTests.root.appendingPathComponent("Scenarios/family-refund.yaml").path
        let jsonl = Simctl.main(["run", scenario, "--format", "jsonl", "--environment", "Sandbox"]).stdout
        let folder = Self.temporaryPath("")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(Simctl.main(["run", scenario, "--out", folder, "--environment", "Sandbox"]).exitCode == 0)
        let stream = Self.temporaryPath(".jsonl")
        defer { try? FileManager.default.removeItem(atPath: stream) }
        try jsonl.write(toFile: stream, atomically: true, encoding: .utf8)
        for source in [folder, stream] {
            let seen = Recorder()
            let receiver = try LoopbackReceiver { message in
                seen.add(message)
                return .respond(status: 200, body: "")
            }
            defer { receiver.stop() }
            let output = Simctl.main(["replay", source, "--deliver", receiver.url()])
            #expect(output.exitCode == 0, "\(output.stderr)")
            #expect(seen.bodies.map { $0 + "\n" }.joined() == jsonl, "\(source)")
        }
        // A failing endpoint: retried as run --deliver does, or once each with --no-retries.
        let counts = Counter()
        let failing = try LoopbackReceiver { message in
            counts.increment(message.body) <= 1 ? .respond(status: 503, body: "busy") : .respond(status: 200, body: "")
        }
        defer { failing.stop() }
        let retried = Simctl.main(["replay", stream, "--deliver", failing.url()])
        let count = jsonl.split(separator: "\n").count
        #expect(
            retried.exitCode == 0
                && retried.stderr.contains("\(count) of \(count) notifications delivered in \(2 * count) attempts"))
        let always = try LoopbackReceiver { _ in .respond(status: 503, body: "busy") }
        defer { always.stop() }
        let once = Simctl.main(["replay", folder, "--deliver", always.url(), "--no-retries"])
        #expect(
            once.exitCode == 2 && once.stderr.contains("0 of \(count) notifications delivered in \(count) attempts"))
        #expect(once.stderr.contains("last answer: HTTP 503: busy"))
    }

    @Test func replayRefusesWhatIsNotAStream() throws {
        let bad = Self.temporaryPath(".jsonl")
        defer { try? FileManager.default.removeItem(atPath: bad) }
        try "{\"signedPayload\":\"a.b.c\"}\nnot json\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let output = Simctl.main(["replay", bad, "--deliver", "http://127.0.0.1:9/"])
        #expect(output.exitCode == 65 && output.stderr.hasPrefix("\(bad):1:1: error: the signedPayload is not a JWS"))
        #expect(Simctl.main(["replay", bad]).stderr.contains("needs '--deliver URL'"))
        #expect(Simctl.main(["replay", "/nonexistent", "--deliver", "http://127.0.0.1:9/"]).exitCode == 66)
        #expect(Simctl.main(["replay", bad, "--deliver", "http://127.0.0.1:9/", "--retries"]).exitCode == 64)
    }
}

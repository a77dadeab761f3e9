import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlHTTP

/// SIGTERM while a control call is delivering to a webhook that does not answer (`--deliver-timeout 20s`): `serve`
/// exits within its bound (5 s for requests in flight; docs/reliability.md, "Shutdown"), the attempt in flight is
/// logged as one that did not complete, and the exit summary counts the notification as still pending.
@Suite(.serialized) struct ShutdownBoundTests {
    final class Flag: @unchecked Sendable {
        private let condition = NSCondition()
        private var count = 0
        func raise() {
            condition.lock()
            count += 1
            condition.broadcast()
            condition.unlock()
        }
        /// How many times it was raised.
        var raised: Int {
            condition.lock()
            defer { condition.unlock() }
            return count
        }
        /// Waits until raised (at most `seconds`, only so that a broken server cannot hang the suite).
        func wait(seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(seconds)
            while count == 0 { if !condition.wait(until: deadline) { return count > 0 } }
            return true
        }
    }

    @Test func sigtermDuringA20SecondDeliveryExitsWithinTheBoundAndLogsTheAttempt() throws {
        let arrived = Flag()
        let receiver = try LoopbackReceiver { _ in
            arrived.raise()
            return .hold
        }
        defer { receiver.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "simctl-shutdown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = folder.appendingPathComponent("serve.yaml").path
        try familyServeScenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        let log = folder.appendingPathComponent("serve.log").path
        let serve = try ServeProcess([
            scenario, "--deliver", receiver.url(path: "/asn"), "--deliver-timeout", "20s", "--log", log,
        ])
        // The control call blocks while its notification is being delivered: made on a thread of its own.
        let answered = Flag()
        let port = serve.port
        Thread {
            if let connection = try? TestConnection(port: port) {
                _ = connection.request(
                    "POST", "/simctl/v1/actions",
                    body: #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
                connection.close()
            }
            answered.raise()
        }.start()
        #expect(arrived.wait(seconds: 30), "the webhook got the delivery")
        let clock = ContinuousClock()
        let started = clock.now
        serve.process.terminate()  // SIGTERM
        serve.process.waitUntilExit()
        let took = started.duration(to: clock.now)
        #expect(took < .seconds(6), "serve took \(took) to stop; the bound is 5 s")
        #expect(serve.process.terminationStatus == 0)
        #expect(answered.wait(seconds: 10))
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("SIGTERM: stopping"))
        #expect(
            text.contains(
                "attempt 1 at 2026-03-01T09:00:00Z: OTHER (did not complete: cut short, the server is stopping)"),
            "\(text)")
        #expect(text.contains("notifications: 0 delivered, 0 failed after Apple's retries, 1 still pending"), "\(text)")
        let stderr = String(decoding: serve.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("still pending"), "\(stderr)")
    }

    /// `run --deliver` told to stop while a webhook holds an attempt (`--deliver-timeout 20s`): the attempt is cut
    /// short at once and logged as one that did not complete (`"cutShort": true`), no later attempt is made, no
    /// fixture folder is written, and the command says how the notifications ended and exits 143 (128 + SIGTERM).
    @Test func sigtermDuringARunDeliveryCutsTheAttemptAndLogsIt() throws {
        let arrived = Flag()
        let receiver = try LoopbackReceiver { _ in
            arrived.raise()
            return .hold
        }
        defer { receiver.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "simctl-run-shutdown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("delivery.jsonl").path
        let out = folder.appendingPathComponent("fixtures").path
        let process = Process()
        process.executableURL = ServeProcess.binary
        process.arguments = [
            "run", repositoryRoot + "/Scenarios/family-stop-sharing.yaml", "--deliver", receiver.url(path: "/asn"),
            "--deliver-timeout", "20s", "--delivery-log", log, "--out", out,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(arrived.wait(seconds: 30), "the webhook got the first attempt")
        let clock = ContinuousClock()
        let started = clock.now
        process.terminate()  // SIGTERM
        // Waited for at most 30 s, then killed, so that a run that ignores the signal fails the test, never hangs it.
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let took = started.duration(to: clock.now)
        #expect(took < .seconds(6), "run took \(took) to stop")
        #expect(process.terminationReason == .exit && process.terminationStatus == 143)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("SIGTERM: stopped delivering"), "\(stderr)")
        #expect(stderr.contains("delivery cut short: simctl was stopped (SIGTERM)"), "\(stderr)")
        #expect(stderr.contains("notifications: 0 delivered, 0 failed after Apple's retries, "), "\(stderr)")
        #expect(stderr.contains("no fixture folder written to '\(out)'"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1, "one attempt, cut short: \(lines)")
        #expect(lines.first?.contains(#""cutShort":true"#) == true, "\(lines)")
        #expect(lines.first?.contains(#""sendAttemptResult":"OTHER""#) == true, "\(lines)")
        #expect(arrived.raised == 1, "no attempt after the signal")
    }
}

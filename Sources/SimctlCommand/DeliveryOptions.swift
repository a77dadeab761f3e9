import Foundation
import SimctlHTTP
import SimctlHTTPDelivery
import SimctlURLSessionDelivery
import SubscriptionSimulator

/// `simctl run FILE --deliver URL ...`: the delivery options and what running them does.
package struct DeliveryOptions: Equatable, Sendable {
    package var url: String
    package var timeoutMilliseconds: Int64 = 5000
    package var mode: DeliveryMode = .production
    package var connections = 1
    package var chaos = DeliveryChaos.none
    package var logFile: String?

    package init(url: String) { self.url = url }

    /// Options that need `--deliver`.
    static let names = [
        "--deliver", "--deliver-timeout", "--deliver-mode", "--deliver-connections", "--delivery-log",
        "--chaos-duplicate", "--chaos-reorder-window", "--chaos-fail-first", "--chaos-fail-rate",
    ]

    /// The delivery options given so far, before `--deliver` is known to be there.
    struct Builder {
        var values: [String: String] = [:]
        /// The command whose usage a mistake shows (`run`, `trigger`, `replay`).
        var topic = "run"

        init(topic: String = "run") { self.topic = topic }

        mutating func set(_ name: String, _ value: String) throws(UsageError) {
            if values[name] != nil { throw UsageError(message: "option '\(name)' is given twice", topic: topic) }
            values[name] = value
        }

        func build() throws(UsageError) -> DeliveryOptions? {
            guard let url = values["--deliver"] else {
                if let other = values.keys.sorted().first {
                    throw UsageError(message: "option '\(other)' needs '--deliver URL'", topic: topic)
                }
                return nil
            }
            if let problem = DeliveryConnection.problem(url) { throw UsageError(message: problem, topic: topic) }
            var options = DeliveryOptions(url: url)
            if let text = values["--deliver-timeout"] {
                guard let ms = Self.milliseconds(text, limit: 600_000), ms > 0 else {
                    throw UsageError(
                        message: "option '--deliver-timeout' needs a duration from 1ms to 10m such as 5s, 500ms or "
                            + "2m, found '\(text)'", topic: topic)
                }
                options.timeoutMilliseconds = ms
            }
            if let text = values["--deliver-mode"] {
                guard let mode = DeliveryMode(rawValue: text) else {
                    throw UsageError(
                        message: "option '--deliver-mode' is production or sandbox, found '\(text)'", topic: topic)
                }
                options.mode = mode
            }
            if let text = values["--deliver-connections"] {
                guard let count = Int(text), (1...64).contains(count) else {
                    throw UsageError(
                        message: "option '--deliver-connections' needs a whole number from 1 to 64, found '\(text)'",
                        topic: topic)
                }
                options.connections = count
            }
            options.logFile = values["--delivery-log"]
            if options.logFile?.isEmpty == true {
                throw UsageError(message: "option '--delivery-log' needs a file path", topic: topic)
            }
            if let text = values["--chaos-duplicate"] {
                options.chaos.duplicateRate = try Self.rate(text, "--chaos-duplicate", topic: topic)
            }
            if let text = values["--chaos-fail-rate"] {
                options.chaos.failRate = try Self.rate(text, "--chaos-fail-rate", topic: topic)
            }
            if let text = values["--chaos-reorder-window"] {
                guard let ms = Self.milliseconds(text, limit: DeliveryChaos.maximumReorderWindowMilliseconds) else {
                    throw UsageError(
                        message:
                            "option '--chaos-reorder-window' needs a duration up to 365d such as 30m, 1h or 2d, "
                            + "found '\(text)'",
                        topic: topic)
                }
                options.chaos.reorderWindowMilliseconds = ms
            }
            if let text = values["--chaos-fail-first"] {
                guard let count = Int(text), (0...5).contains(count) else {
                    throw UsageError(
                        message: "option '--chaos-fail-first' needs a whole number from 0 to 5 (a notification has at "
                            + "most 6 attempts), found '\(text)'", topic: topic)
                }
                options.chaos.failFirstAttempts = count
            }
            return options
        }

        /// A share from 0 to 1 (`--chaos-duplicate`, `--chaos-fail-rate`); `topic`: the help topic of the command.
        static func rate(_ text: String, _ name: String, topic: String = "run") throws(UsageError) -> Double {
            guard let value = Double(text), value.isFinite, (0...1).contains(value) else {
                throw UsageError(
                    message: "option '\(name)' needs a share from 0 to 1 such as 0.1, found '\(text)'", topic: topic)
            }
            return value
        }

        /// A duration of fixed length (no months or years) in milliseconds, at most `limit`; nil otherwise.
        static func milliseconds(_ text: String, limit: Int64) -> Int64? {
            guard let d = CalendarDurationSyntax.parse(text), d.years == 0, d.months == 0 else { return nil }
            let parts: [(Int, Int64)] = [
                (d.weeks, 604_800_000), (d.days, 86_400_000), (d.hours, 3_600_000), (d.minutes, 60_000),
                (d.seconds, 1000), (d.milliseconds, 1),
            ]
            var total: Int64 = 0
            for (count, unit) in parts {
                guard count >= 0, Int64(count) <= limit / unit else { return nil }
                total += Int64(count) * unit
                if total > limit { return nil }
            }
            return total
        }
    }

    /// What the endpoint last answered for an undelivered notification: its HTTP status and the first 200 bytes of
    /// the body (`  last answer: HTTP 400: {"error":"bad signature"}`); nothing when it never answered.
    static func answerLine(_ record: NotificationDeliveryRecord) -> String {
        guard let status = record.lastHTTPStatus else { return "" }
        return "  last answer: HTTP \(status)" + (record.lastResponseStart.map { ": " + $0 } ?? " (empty body)") + "\n"
    }

    /// How the notifications ended, for standard error on exit (`run --deliver`, `serve --deliver`): delivered,
    /// failed after Apple's retries (out of attempts), still pending (a retry scheduled, or not made because the run
    /// or the server stopped).
    static func outcomeLine(_ report: DeliverySummary) -> String {
        "notifications: \(report.delivered) delivered, \(report.failedAfterRetries) failed after Apple's retries, "
            + "\(report.pending) still pending\n"
    }

    /// The first lines of ``summary(_:destination:mode:)``: the counts, without the undelivered notifications.
    static func headline(_ report: DeliverySummary, destination: String, mode: DeliveryMode) -> String {
        var text =
            "delivery to \(destination) (\(mode.rawValue)): \(report.delivered) of \(report.notifications) "
            + "notifications delivered in \(report.attempts) attempts"
        if let end = report.finishedAt { text += ", last attempt at \(end)" }
        return text + "\n" + outcomeLine(report)
    }

    /// The summary of a delivery, for standard error: how many notifications were delivered in how many attempts,
    /// and each undelivered one with its attempts.
    static func summary(_ report: DeliverySummary, destination: String, mode: DeliveryMode) -> String {
        var text = headline(report, destination: destination, mode: mode)
        for record in report.undelivered {
            let attempts = record.sendAttempts.map { "\($0.attemptDate) \($0.sendAttemptResult.rawValue)" }
            text +=
                "undelivered: \(record.item.notificationUUID) \(record.item.notificationType) to "
                + "\(record.item.recipient ?? "the app") after \(record.sendAttempts.count) attempts: "
                + attempts.joined(separator: ", ") + "\n"
            text += answerLine(record)
        }
        return text
    }
}

/// The transport `--deliver URL` opens: `http://` through simctl's own HTTP client (`HTTPDelivery`), `https://`
/// through URLSession with the system's trust store (`HTTPSDelivery`).
enum DeliveryConnection: Sendable {
    case http(HTTPDelivery)
    case https(HTTPSDelivery)

    /// What is wrong with `url` as a delivery URL, or nil when it can be used.
    static func problem(_ url: String) -> String? {
        if url.lowercased().hasPrefix("https://") {
            do throws(HTTPSEndpointError) { _ = try HTTPSDelivery.endpoint(url) } catch { return error.description }
        } else {
            do throws(HTTPEndpointError) { _ = try HTTPEndpoint(url: url) } catch { return error.description }
        }
        return nil
    }

    /// Opens the transport for the options' URL; the error says what is wrong with the URL.
    static func open(_ options: DeliveryOptions) -> Result<DeliveryConnection, UsageError> {
        if options.url.lowercased().hasPrefix("https://") {
            do throws(HTTPSEndpointError) {
                let url = try HTTPSDelivery.endpoint(options.url)
                return .success(
                    .https(
                        HTTPSDelivery(
                            url: url, timeoutMilliseconds: options.timeoutMilliseconds,
                            connections: options.connections)))
            } catch {
                return .failure(UsageError(message: error.description, topic: "run"))
            }
        }
        do throws(HTTPEndpointError) {
            let endpoint = try HTTPEndpoint(url: options.url)
            return .success(
                .http(
                    HTTPDelivery(
                        endpoint: endpoint, timeoutMilliseconds: options.timeoutMilliseconds,
                        connections: options.connections)))
        } catch {
            return .failure(UsageError(message: error.description, topic: "run"))
        }
    }

    /// The transport, for the delivery pump.
    var transport: any DeliveryTransport {
        switch self {
        case .http(let http): return http
        case .https(let https): return https
        }
    }

    /// Cuts the attempts in flight short, from any thread; later ones fail at once (`serve` stopping).
    func abort() {
        switch self {
        case .http(let http): http.abort()
        case .https(let https): https.close()
        }
    }

    /// Closes the connections.
    func close() {
        switch self {
        case .http(let http): http.close()
        case .https(let https): https.close()
        }
    }
}

/// Opens `path` for writing in place: created if absent, truncated if present (a device or a symbolic link stays
/// what it is; FileManager.createFile would write a new file and rename it over the path, turning `/dev/null` into a
/// regular file). Returns the descriptor, or -1. Used by `--delivery-log` and `serve --log`.
func openTruncating(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
}

/// `--delivery-log FILE`: one JSON line per attempt, written as the delivery goes. A log that cannot be opened is
/// exit code 73 (``ExitCode/cannotCreate``); a line that cannot be written whole, 74 (``writeFailed``, the system's
/// reason in the message).
final class FileDeliveryLog: DeliveryLogWriter {
    let path: String
    var descriptor: Int32 = -1
    /// A line could not be written (full disk, I/O error): the run ends with exit code 74.
    private(set) var writeFailed = false

    init(path: String) { self.path = path }

    func open() throws(DeliveryLogError) {
        // Opened in place, never replaced (``openTruncating(_:)``).
        descriptor = openTruncating(path)
        guard descriptor >= 0 else {
            throw DeliveryLogError(
                message: "cannot write the delivery log '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    func write(_ entry: DeliveryLogEntry) throws(DeliveryLogError) {
        guard descriptor >= 0 else { return }
        let line = Array((CanonicalJSON.string(entry.json) + "\n").utf8)
        let code = line.withUnsafeBytes { OutputWrites.write($0, to: descriptor) }
        if code != 0 {
            writeFailed = true
            throw DeliveryLogError(
                message: "cannot write the delivery log '\(path)': \(String(cString: strerror(code))) (errno \(code))"
                    + "; the log is incomplete and no attempt was made after this one")
        }
    }

    func close() {
        if descriptor >= 0 { _ = Foundation.close(descriptor) }
        descriptor = -1
    }
}

extension ExitCode {
    /// `--deliver`: a notification is still undelivered after its last attempt.
    package static let undelivered: Int32 = 2
}

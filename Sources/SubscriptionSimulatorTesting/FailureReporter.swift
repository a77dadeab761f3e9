import Foundation

#if canImport(Testing)
    import Testing
#endif
#if canImport(XCTest)
    import XCTest
#endif

/// Where a failed assertion was written: the caller's `#fileID`, `#filePath`, `#line` and `#column`.
public struct CallSite: Sendable {
    /// As XCTest takes it.
    public var file: StaticString
    public var fileID: String
    public var filePath: String
    public var line: Int
    public var column: Int

    public init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        self.file = filePath
        self.fileID = "\(fileID)"
        self.filePath = "\(filePath)"
        self.line = Int(line)
        self.column = Int(column)
    }
}

/// Where assertion failures go. ``automatic`` reports to the test framework that is running the current test:
/// Swift Testing's `Issue.record` inside a `@Test`, `XCTFail` inside an `XCTestCase`. Tests of the assertions
/// themselves inject ``collecting(into:)`` to read the failures instead.
public struct FailureReporter: Sendable {
    public var report: @Sendable (_ message: String, _ site: CallSite) -> Void
    /// What is worth seeing but is not a failure: the assertions a non-exhaustive ``StoreTester`` skipped.
    public var note: @Sendable (_ message: String, _ site: CallSite) -> Void

    /// `note` defaults to printing to standard output.
    public init(
        report: @escaping @Sendable (_ message: String, _ site: CallSite) -> Void,
        note: @escaping @Sendable (_ message: String, _ site: CallSite) -> Void = FailureReporter.printNote
    ) {
        self.report = report
        self.note = note
    }

    /// Prints `FILE:LINE: note: MESSAGE` to standard output.
    @Sendable public static func printNote(_ message: String, _ site: CallSite) {
        print("\(site.filePath):\(site.line): note: \(message)")
    }

    /// The frameworks a failure can be reported to.
    public enum Framework: String, Sendable {
        case swiftTesting
        case xcTest
        /// Neither is running a test (or neither is available): the failure is printed to standard error.
        case standardError
    }

    /// The framework running the current test. Swift Testing when a `@Test` is running on this task
    /// (`Test.current`); otherwise XCTest when it is available (an `XCTestCase` test, the only other way tests run).
    public static var currentFramework: Framework {
        #if canImport(Testing)
            if Test.current != nil { return .swiftTesting }
        #endif
        #if canImport(XCTest)
            return .xcTest
        #else
            return .standardError
        #endif
    }

    /// Reports to ``currentFramework``. Notes are known issues under Swift Testing (shown, not failing, as TCA's
    /// `TestStore` shows skipped assertions) and printed otherwise.
    public static let automatic = FailureReporter(report: reportToCurrentFramework, note: noteToCurrentFramework)

    @Sendable static func noteToCurrentFramework(_ message: String, _ site: CallSite) {
        #if canImport(Testing)
            if currentFramework == .swiftTesting {
                let location = Testing.SourceLocation(
                    fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
                withKnownIssue(Comment(rawValue: message), sourceLocation: location) {
                    Issue.record(Comment(rawValue: message), sourceLocation: location)
                }
                return
            }
        #endif
        printNote(message, site)
    }

    @Sendable static func reportToCurrentFramework(_ message: String, _ site: CallSite) {
        switch currentFramework {
        case .swiftTesting:
            #if canImport(Testing)
                Issue.record(
                    Comment(rawValue: message),
                    sourceLocation: Testing.SourceLocation(
                        fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
            #endif
        case .xcTest:
            #if canImport(XCTest)
                XCTFail(message, file: site.file, line: UInt(site.line))
            #endif
        case .standardError:
            FileHandle.standardError.write(Data("\(site.filePath):\(site.line): error: \(message)\n".utf8))
        }
    }

    /// Appends every failure to `log` (``FailureLog/messages``) and every note to ``FailureLog/notes`` instead of
    /// failing the test.
    public static func collecting(into log: FailureLog) -> FailureReporter {
        FailureReporter(
            report: { message, site in log.append(message, at: site) },
            note: { message, _ in log.appendNote(message) })
    }
}

/// Failures collected by ``FailureReporter/collecting(into:)``, in the order they were reported.
public final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(message: String, site: CallSite)] = []

    public init() {}

    private var noted: [String] = []

    func appendNote(_ message: String) {
        lock.lock()
        defer { lock.unlock() }
        noted.append(message)
    }

    /// The notes (``FailureReporter/note``), in order: what a non-exhaustive tester skipped.
    public var notes: [String] {
        lock.lock()
        defer { lock.unlock() }
        return noted
    }

    func append(_ message: String, at site: CallSite) {
        lock.lock()
        defer { lock.unlock() }
        entries.append((message, site))
    }

    public var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries.map(\.message)
    }

    public var sites: [CallSite] {
        lock.lock()
        defer { lock.unlock() }
        return entries.map(\.site)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The signal that arrived while ``Interrupts/deferred(_:)`` was holding signals back; 0 when none. A signal handler
/// can only reach global state; this is the command line's only global, written by the handler and read once after.
nonisolated(unsafe) private var heldSignal: Int32 = 0

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP held back while `body` runs, then acted on: a fixture folder is written
/// completely, or its temporary folder removed, before the process stops, so an interrupted run never leaves a
/// partial folder behind. (SIGKILL cannot be held back; after one, a hidden `.NAME.partial-PID` folder may remain
/// next to the target, until the next run into the same folder removes it: ``FixtureWriter/removeAbandonedFolders(in:)``.) Blocking the signals with a signal mask is not enough: the runtime's other threads would
/// still take them, so a handler notes the signal and it is raised again once the previous handlers are back.
enum Interrupts {
    static func deferred<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        heldSignal = 0
        let signals = [SIGINT, SIGTERM, SIGHUP]
        let previous = signals.map { signal($0) { heldSignal = $0 } }
        defer {
            for (number, handler) in zip(signals, previous) { signal(number, handler) }
            if heldSignal != 0 { raise(heldSignal) }
        }
        return try body()
    }
}

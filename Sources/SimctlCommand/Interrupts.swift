import Dispatch
import Foundation

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

/// The signal that told `run --deliver` to stop (``Interrupts/stoppingDelivery(abort:_:)``); 0 while none did.
nonisolated(unsafe) private var deliveryStopSignal: Int32 = 0

extension Interrupts {
    /// SIGINT and SIGTERM while `run --deliver` delivers (docs/reliability.md, "Shutdown"): the signal is noted by a
    /// handler (so the process does not die with attempts unrecorded), and a watcher thread calls `abort` at once,
    /// which cuts the attempts in flight short (each recorded as an attempt that did not complete). `body` gets the
    /// question "which signal arrived?" (0: none), which the delivery asks before each attempt
    /// (``DeliveryPlan/stopping``). The previous handlers are back when `body` returns.
    static func stoppingDelivery<T>(
        abort: @escaping @Sendable () -> Void, _ body: (@escaping @Sendable () -> Int32) -> T
    )
        -> T
    {
        deliveryStopSignal = 0
        let signals = [SIGINT, SIGTERM]
        let previous = signals.map { signal($0) { deliveryStopSignal = $0 } }
        // A process may start with these signals blocked (a parent's thread that blocks them passes its mask on):
        // unblocked in this thread, so the handler runs; the mask is restored after.
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        var previousMask = sigset_t()
        _ = pthread_sigmask(SIG_UNBLOCK, &set, &previousMask)
        let finished = DispatchSemaphore(value: 0)
        // A handler may only note the signal; cutting connections short is done here, within 20 ms of it.
        Thread {
            while finished.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
                if deliveryStopSignal != 0 {
                    abort()
                    finished.wait()
                    return
                }
            }
        }.start()
        defer {
            finished.signal()
            _ = pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            for (number, handler) in zip(signals, previous) { signal(number, handler) }
        }
        return body { deliveryStopSignal }
    }
}

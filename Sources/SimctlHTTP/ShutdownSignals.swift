import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waiting for SIGINT (Ctrl-C) or SIGTERM (`kill`, container stop) to shut a server down gracefully.
///
/// Works with `sigwait`, no signal handler: the signals are blocked, so they stay pending until a waiting thread
/// takes them. A process-directed signal goes to any thread that does not block it, so call ``block()`` at the
/// start of the command, before any thread is started (threads inherit the mask of the thread that starts them):
///
/// ```swift
/// ShutdownSignals.block()
/// let server = try HTTPServer(configuration: configuration, handler: handle)
/// server.start()
/// let signal = ShutdownSignals.wait()   // SIGINT or SIGTERM
/// server.stop()
/// ```
///
/// Tests (which run in a process whose other threads do not block the signals) use ``trigger(_:)``: it sends the
/// signal to the waiting thread only (`pthread_kill`), through the same `sigwait`.
public enum ShutdownSignals {
    /// SIGINT and SIGTERM.
    public static let signals: [Int32] = [SIGINT, SIGTERM]

    /// Blocks SIGINT and SIGTERM in the calling thread and in every thread it starts afterwards.
    public static func block() {
        var set = signalSet()
        _ = pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks the signals in the calling thread (``block()``) and waits until SIGINT or SIGTERM arrives (or
    /// ``trigger(_:)`` sends one); returns its number.
    public static func wait() -> Int32 {
        block()
        state.lock.lock()
        if !state.pending.isEmpty {
            let signal = state.pending.removeFirst()
            state.lock.unlock()
            return signal
        }
        let me = pthread_self()
        state.waiters.append(me)
        state.lock.unlock()
        var set = signalSet()
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        state.lock.lock()
        if let index = state.waiters.firstIndex(where: { pthread_equal($0, me) != 0 }) {
            state.waiters.remove(at: index)
        }
        state.lock.unlock()
        return received
    }

    /// Delivers `signal` (SIGINT or SIGTERM) to a thread inside ``wait()``, as if the process had received it; when
    /// no thread waits yet, the next ``wait()`` returns it at once. For tests.
    public static func trigger(_ signal: Int32 = SIGTERM) {
        precondition(signals.contains(signal), "ShutdownSignals.trigger takes SIGINT or SIGTERM")
        state.lock.lock()
        defer { state.lock.unlock() }
        if let waiter = state.waiters.first {
            state.waiters.removeFirst()
            _ = pthread_kill(waiter, signal)
        } else {
            state.pending.append(signal)
        }
    }

    static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }

    final class State: @unchecked Sendable {
        let lock = NSLock()
        var waiters: [pthread_t] = []
        var pending: [Int32] = []
    }

    static let state = State()
}

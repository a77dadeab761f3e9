import Foundation

/// Writes chunks of output on a thread of its own, so that a slow destination (a file whose pages the kernel must
/// write back, a pipe whose reader lags) holds up neither the run nor the encoding: ``write(_:)`` queues a chunk and
/// returns, waiting only while `depth` chunks already wait (back-pressure, so memory stays bounded by twice `depth`
/// chunks: those waiting and those the thread took); the thread takes them half a queue at a time and hands them to
/// `destination` in order, each byte once. ``finish()`` waits until every chunk is
/// written. ``RunPlan`` puts one between its sinks (which produce chunks of about 64 KB) and standard output.
public final class BackgroundWriter: @unchecked Sendable {
    /// Unchecked: `destination` is called only on the writer's thread; the queue has its own lock.
    final class Core: BackgroundJob, @unchecked Sendable {
        let waiting: Handoff<[UInt8]>
        let done = Handoff<Bool>(capacity: 1)
        let destination: ([UInt8]) -> Void

        init(depth: Int, destination: @escaping ([UInt8]) -> Void) {
            waiting = Handoff(capacity: depth)
            self.destination = destination
        }

        func work() {
            // Woken once for every half queue of chunks, not for each (a wake-up is a context switch: about 80,000
            // of them in a run of 100,000 coincident customers, issue 27); the other half keeps the run going.
            var chunks: [[UInt8]] = []
            repeat {
                waiting.takeAll(atLeast: waiting.capacity / 2, into: &chunks)
                for chunk in chunks { destination(chunk) }
            } while !chunks.isEmpty
            done.put(true)
        }
    }

    let core: Core
    var finished = false

    /// `depth`: how many chunks may wait for the thread.
    public init(depth: Int = 16, _ destination: @escaping ([UInt8]) -> Void) {
        core = Core(depth: depth, destination: destination)
        startThread(core)
    }

    deinit { if !finished { core.waiting.close() } }

    /// Queues `chunk` (waits while `depth` chunks wait).
    public func write(_ chunk: [UInt8]) {
        precondition(!finished, "BackgroundWriter.write after finish()")
        if !chunk.isEmpty { core.waiting.put(chunk) }
    }

    /// Waits until every chunk queued has been written. Call once.
    public func finish() {
        guard !finished else { return }
        finished = true
        core.waiting.close()
        _ = core.done.take()
    }
}

import Foundation

/// Hands a streamed run's output to another sink that runs on a thread of its own, so that writing the output
/// (formatting timeline rows, encoding and signing jsonl, writing fixture files) overlaps with the run on a second
/// core.
///
/// The inner sink receives exactly the notifications and entitlement changes the run sent, in the order sent, only
/// grouped into fewer, larger calls (``RunSink`` makes no promise about grouping, and every sink of this module writes
/// the same bytes however its input is grouped), so the output is byte-identical to running the inner sink directly.
/// Memory stays bounded: at most `depth` groups of about `batchSize` items wait for the inner sink; a run that gets
/// ahead of it waits.
///
/// The inner sink belongs to the background thread from ``init(_:batchSize:depth:)`` until ``finish()`` hands it
/// back (after its last `receive`), so it may hold state the caller reads afterwards (an error, a count). A sink
/// dropped without ``finish()`` lets its thread end once the waiting groups are written.
public final class BackgroundSink<Inner: RunSink>: RunSink {
    let core: Core
    var batch = Batch()
    let batchSize: Int

    /// `batchSize`: how many notifications and changes go to the thread at once; `depth`: how many such groups may
    /// wait for it.
    public init(_ inner: Inner, batchSize: Int = 512, depth: Int = 4) {
        self.batchSize = max(1, batchSize)
        core = Core(inner, depth: depth)
        startThread(core)
    }

    deinit { core.waiting.close() }

    public func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        batch.notifications.append(contentsOf: notifications)
        batch.changes.append(contentsOf: changes)
        if batch.count >= batchSize { core.hand(&batch) }
    }

    /// Takes the arrays when no group is being filled (they become the group, and the arrays left are emptied ones
    /// from earlier groups): nothing is copied.
    public func receive(taking notifications: inout [SentNotification], _ changes: inout [EntitlementChange]) {
        guard batch.count == 0 else { return receive(notifications[...], changes[...]) }
        swap(&batch.notifications, &notifications)
        swap(&batch.changes, &changes)
        if batch.count >= batchSize { core.hand(&batch) }
    }

    /// Waits until the inner sink has received everything and hands it back (to be finished by the caller). Call
    /// once, after the run.
    public func finish() -> Inner {
        if batch.count > 0 { core.hand(&batch) }
        return core.join()
    }

    /// A group of output on its way to the thread.
    struct Batch {
        var notifications: [SentNotification] = []
        var changes: [EntitlementChange] = []

        var count: Int { notifications.count + changes.count }

        mutating func removeAll() {
            notifications.removeAll(keepingCapacity: true)
            changes.removeAll(keepingCapacity: true)
        }
    }

    /// What the two threads share: the groups waiting for the thread (at most `depth`), emptied groups coming back
    /// to be reused, and the inner sink, handed to the thread at its start and back at its end.
    final class Core: BackgroundJob {
        let waiting: Handoff<Batch>
        let spare = Handoff<Batch>()
        let given = Handoff<Inner>(capacity: 1)
        let returned = Handoff<Inner>(capacity: 1)

        init(_ inner: Inner, depth: Int) {
            waiting = Handoff(capacity: depth)
            given.put(inner)
        }

        /// Queues `batch` for the thread (waiting while `depth` groups already wait) and replaces it with an empty
        /// one.
        func hand(_ batch: inout Batch) {
            var next = spare.takeIfAny() ?? Batch()
            swap(&next, &batch)
            waiting.put(next)
        }

        /// Closes, waits for the thread to write everything, and takes the inner sink back.
        func join() -> Inner {
            waiting.close()
            return returned.take()!
        }

        /// The thread: hands each group to the inner sink, in order, until closed and drained.
        func work() {
            var sink = given.take()!
            while var batch = waiting.take() {
                sink.receive(batch.notifications[...], batch.changes[...])
                batch.removeAll()  // on this thread: this releases every string the group held
                spare.put(batch)
            }
            returned.put(sink)
        }
    }
}

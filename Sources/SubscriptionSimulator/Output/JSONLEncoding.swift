import Foundation

/// Encodes a group of notifications' jsonl lines on two threads: the caller's and a helper thread of its own. The
/// group is cut into blocks of ``block`` notifications; both threads take the next block not yet taken until none is
/// left (so a helper that gets no core leaves the caller to do the work, waiting at most for the block it took),
/// each block is encoded into a chunk of its own, and the caller hands the chunks on in the group's order: the bytes
/// are those of encoding the group on one thread, and each is written once, into the chunk it is handed on in.
///
/// ``JSONLSink`` uses one for ``RunPlan``'s streamed runs (docs/streaming.md): on a machine with two cores the
/// encoding, about two thirds of a jsonl run's work, is then shared by both instead of following the run on one.
/// The helper thread ends when the value is released.
final class JSONLEncoding {
    /// Notifications per block: about 53 KB of jsonl with the default signer, close to ``ChunkedWriter/chunk``.
    static let block = 16

    let core: Core

    init(encoder: NotificationEncoder, signing: JWSSigning) {
        core = Core(encoder: encoder, signing: signing)
        startThread(core)
    }

    deinit { core.close() }

    /// Encodes `notifications` (their POST bodies, each followed by a newline) and hands `write` the bytes in order,
    /// in chunks of ``block`` notifications. Returns once every chunk is handed on.
    func encode(
        _ notifications: ArraySlice<SentNotification>, buffers: inout NotificationEncoder.Buffers,
        write: ([UInt8]) -> Void
    ) {
        for chunk in core.encode(notifications, buffers: &buffers) { write(chunk) }
    }

    /// What the two threads share. Unchecked: every mutable member is read and written with the lock held; the
    /// notifications are only read, by both threads, while the caller waits in ``encode(_:buffers:)``.
    final class Core: BackgroundJob, @unchecked Sendable {
        let encoder: NotificationEncoder
        let signing: JWSSigning
        let condition = NSCondition()
        /// The group being encoded (empty between groups).
        var group: ArraySlice<SentNotification> = []
        var blocks = 0
        /// The next block no thread has taken.
        var next = 0
        /// Blocks encoded so far.
        var done = 0
        /// Each block's chunk once encoded.
        var chunks: [[UInt8]?] = []
        var closed = false

        init(encoder: NotificationEncoder, signing: JWSSigning) {
            self.encoder = encoder
            self.signing = signing
        }

        /// Encodes block `index` of `group`.
        func chunk(
            _ index: Int, of group: ArraySlice<SentNotification>, buffers: inout NotificationEncoder.Buffers
        ) -> [UInt8] {
            let start = index * JSONLEncoding.block  // offsets from the group's start
            let end = min(start + JSONLEncoding.block, group.count)
            var out: [UInt8] = []
            out.reserveCapacity(ChunkedWriter.chunk + 8192)
            group.withUnsafeBufferPointer { notifications in  // read in place, as in `JSONLSink`
                for position in start..<end {
                    JSONLSink.appendLine(
                        of: notifications[position], encoder: encoder, signing: signing, to: &out, buffers: &buffers)
                }
            }
            return out
        }

        /// Takes the next block not yet taken and encodes it; false when none is left. Called with the lock held;
        /// encodes without it.
        func takeBlock(buffers: inout NotificationEncoder.Buffers) -> Bool {
            guard next < blocks else { return false }
            let index = next
            next += 1
            let notifications = group
            condition.unlock()
            let bytes = chunk(index, of: notifications, buffers: &buffers)
            condition.lock()
            chunks[index] = bytes
            done += 1
            if done == blocks { condition.broadcast() }
            return true
        }

        /// The caller's side: offers the group's blocks to the helper, encodes blocks until none is left, waits for
        /// the helper's last one and returns the chunks in order.
        func encode(
            _ notifications: ArraySlice<SentNotification>, buffers: inout NotificationEncoder.Buffers
        ) -> [[UInt8]] {
            condition.lock()
            group = notifications
            blocks = (notifications.count + JSONLEncoding.block - 1) / JSONLEncoding.block
            next = 0
            done = 0
            chunks = Array(repeating: nil, count: blocks)
            condition.broadcast()
            while takeBlock(buffers: &buffers) {}
            while done < blocks { condition.wait() }
            let result = chunks.map { $0! }
            chunks = []
            group = []
            condition.unlock()
            return result
        }

        /// The helper thread: encodes blocks whenever a group has some left, until closed.
        func work() {
            var buffers = NotificationEncoder.Buffers()
            condition.lock()
            while !closed {
                if !takeBlock(buffers: &buffers) { condition.wait() }
            }
            condition.unlock()
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
    }
}

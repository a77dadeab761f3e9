/// The fixture folder format: `NNNN.json` (one POST body each, numbered from 0001 in virtual-time order, signed by
/// `signer`, or by the environment's default signer when it is `nil`) and `manifest.json` listing each file's
/// recipient, instant, type, subtype and notification UUID under the scenario's name, seed, start and until. The
/// one writer of the format: into a ``FixtureWriter/Staging`` folder for `simctl run --out`, into memory
/// (``FixtureFilesInMemory``) for ``RunOutput/fixtureFiles(_:signer:)``. Each `NNNN.json` is written when its
/// notification is sent; `manifest.json` by ``finish()``. The numbers are at least four digits wide and as wide as the
/// last one: when the count passes 9999 (99999, ...) the files so far are renamed to the new width. The first write
/// error stops the writing and is kept in ``error``.
public struct FixtureSink: RunSink {
    let scenario: Scenario
    let encoder: NotificationEncoder
    let signing: JWSSigning
    var buffers = NotificationEncoder.Buffers()
    let destination: any FixtureDestination
    var count = 0
    var width = 4
    var manifest = Spool()
    var body: [UInt8] = []
    public private(set) var error: FixtureWriter.WriteError?

    /// Writes into `staging`; the caller commits it after ``finish()``, or abandons it.
    public init(
        scenario: Scenario, app: AppConfiguration, signer: (any PayloadSigner)? = nil, staging: FixtureWriter.Staging
    ) {
        self.init(scenario: scenario, app: app, signer: signer, destination: staging)
    }

    /// Writes into `destination`.
    init(scenario: Scenario, app: AppConfiguration, signer: (any PayloadSigner)?, destination: any FixtureDestination) {
        self.scenario = scenario
        encoder = NotificationEncoder(app: app, signer: signer)
        signing = JWSSigning(encoder.signer)
        self.destination = destination
    }

    /// `NNNN.json`: `number` with leading zeros to `width` digits.
    static func name(_ number: Int, width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits + ".json"
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        for n in notifications {
            guard error == nil else { return }
            count += 1
            do throws(FixtureWriter.WriteError) {
                if String(count).count > width {
                    for number in 1..<count {
                        try destination.rename(Self.name(number, width: width), Self.name(number, width: width + 1))
                    }
                    width += 1
                }
                body.removeAll(keepingCapacity: true)
                encoder.appendPostBody(of: n, signing: signing, to: &body, buffers: &buffers)
                body.append(UInt8(ascii: "\n"))
                try destination.write(Self.name(count, width: width), body)
            } catch {
                self.error = error
                return
            }
            // "\u{0}" marks a notification about the app (no recipient): no customer name is that.
            manifest.append(n.recipient ?? "\u{0}")
            manifest.append(String(n.instant.millisecondsSince1970))
            manifest.append(n.type.rawValue)
            manifest.append(n.subtype?.rawValue ?? "")
            manifest.append(n.notificationUUID)
        }
    }

    /// Writes `manifest.json`, pretty-printed canonical JSON (``CanonicalJSON/pretty(_:)``'s bytes, written entry by
    /// entry); a staging folder's owner then commits it, or abandons it.
    public mutating func finish() {
        guard error == nil else { return }
        var out: [UInt8] = []
        out.append(contentsOf: "{\n  \"notifications\": ".utf8)
        if count == 0 { out.append(contentsOf: "[]".utf8) } else { out.append(UInt8(ascii: "[")) }
        var reader = manifest.reader()
        var number = 0
        while let recipient = reader.nextString(), let ms = reader.nextString(), let type = reader.nextString(),
            let subtype = reader.nextString(), let uuid = reader.nextString()
        {
            number += 1
            let instant = Instant(millisecondsSince1970: Int64(ms)!)
            var entry = JSONObjectBuilder()
            entry.set("file", Self.name(number, width: width))
            entry.set("recipient", recipient == "\u{0}" ? nil : recipient)
            entry.set("instant", instant)
            entry.set("at", instant.description)
            entry.set("notificationType", type)
            entry.set("subtype", subtype.isEmpty ? nil : subtype)
            entry.set("notificationUUID", uuid)
            if number > 1 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\n    ".utf8)
            CanonicalJSON.write(entry.value, into: &out, indent: 2, depth: 2)
        }
        if count > 0 { out.append(contentsOf: "\n  ]".utf8) }
        // The header's other members, after "notifications" in key order.
        let rest: JSONValue = .object([
            "scenario": .string(scenario.name),
            "seed": .integer(Int64(bitPattern: scenario.seed)),
            "start": .string(scenario.start.description),
            "until": .string(scenario.until.description),
        ])
        var restText: [UInt8] = []
        CanonicalJSON.write(rest, into: &restText, indent: 2, depth: 0)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: restText.dropFirst())  // without its "{"
        out.append(UInt8(ascii: "\n"))
        do throws(FixtureWriter.WriteError) { try destination.write("manifest.json", out) } catch { self.error = error }
    }
}

/// Where ``FixtureSink`` puts a fixture folder's files: each written whole under its name, and renamed when the
/// numbers widen. ``FixtureWriter/Staging`` is a folder on disk; ``FixtureFilesInMemory`` keeps them in memory.
protocol FixtureDestination: AnyObject {
    /// Writes the file `name` (replacing one of that name).
    func write(_ name: String, _ bytes: [UInt8]) throws(FixtureWriter.WriteError)
    /// Renames the file `name`, already written, to `newName`.
    func rename(_ name: String, _ newName: String) throws(FixtureWriter.WriteError)
}

extension FixtureWriter.Staging: FixtureDestination {}

/// A fixture folder's files kept in memory, in the order first written (``RunOutput/fixtureFiles(_:signer:)``).
final class FixtureFilesInMemory: FixtureDestination {
    /// The files: names as renamed, in the order first written.
    var files: [(name: String, bytes: [UInt8])] = []
    /// Where each name is in ``files``.
    var positions: [String: Int] = [:]

    /// Keeps the file (in its place, when the name is already there).
    func write(_ name: String, _ bytes: [UInt8]) {
        if let position = positions[name] {
            files[position].bytes = bytes
        } else {
            positions[name] = files.count
            files.append((name, bytes))
        }
    }

    /// Renames a file; a name that is not there, or a new name in use, is an error (``FixtureSink`` never does either).
    func rename(_ name: String, _ newName: String) throws(FixtureWriter.WriteError) {
        guard positions[newName] == nil, let position = positions.removeValue(forKey: name) else {
            throw FixtureWriter.WriteError(path: name, message: "cannot rename it to '\(newName)' in memory")
        }
        files[position].name = newName
        positions[newName] = position
    }
}

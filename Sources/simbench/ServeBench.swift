import Foundation
import SimctlCrypto
import SimctlHTTP
import SimctlServer
import SubscriptionSimulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `simbench serve`: Get All Subscription Statuses requests per second against `simctl serve`'s server (the same
/// SimulatorServer and HTTPServer, in process) holding 1,000 subscribed customers, over keep-alive connections on
/// loopback. The first pass over the customers signs every answer (ES256, Sandbox); later passes are answered from
/// the cache of the unchanged store. Target: at least 10,000 requests per second.
func runServeSection() {
    let customers = 1_000
    var yaml = """
        name: serve benchmark
        start: 2026-03-01T00:00:00Z
        app: { bundleId: com.example.bench, environment: Sandbox }
        products:
          - { id: com.example.bench.monthly, type: autoRenewable, group: bench, period: P1M, price: 4.99 }
        timeline:

        """
    for index in 0..<customers {
        yaml += "  - { at: 0, purchase: { customer: c\(index), product: com.example.bench.monthly } }\n"
    }
    let scenario: Scenario
    let simulator: SimulatorServer
    let http: HTTPServer
    do {
        scenario = try ScenarioDecoder(file: "bench.yaml").decode(yaml)
        simulator = try SimulatorServer(configuration: ServerConfiguration(scenario: scenario))
        http = try HTTPServer(
            configuration: HTTPServerConfiguration(maximumConnections: 64), handler: { simulator.handle(http: $0) })
    } catch {
        print("serve: cannot set up: \(error)")
        return
    }
    http.start()
    defer { http.stop(graceSeconds: 1) }
    // Move to a month later so each customer has a renewal too.
    _ = simulator.handle(
        ServerRequest(method: "POST", path: "/simctl/v1/advance", body: Array(#"{"by": "P1M"}"#.utf8)))
    let ids = (0..<customers).map { "2000000000\(String(format: "%06d", $0 + 1))" }
    let token = benchToken(bundleId: "com.example.bench")
    let port = http.port

    func pass(connections: Int, requestsPerConnection: Int) -> (seconds: Double, ok: Int, cpu: Double) {
        let ok = BenchCounter()
        let clock = ContinuousClock()
        let cpuBefore = processCPUSeconds()
        let started = clock.now
        DispatchQueue.concurrentPerform(iterations: connections) { worker in
            guard let connection = BenchConnection(port: port) else { return }
            defer { connection.close() }
            for index in 0..<requestsPerConnection {
                let id = ids[(worker * requestsPerConnection + index) % ids.count]
                let request =
                    "GET /inApps/v1/subscriptions/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
                if connection.exchange(request) == 200 { ok.add(1) }
            }
        }
        let elapsed = started.duration(to: clock.now).components
        return (
            Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, ok.value, processCPUSeconds() - cpuBefore
        )
    }

    let cold = pass(connections: 4, requestsPerConnection: customers / 4)
    print(
        "serve: first pass, \(customers) customers, each answer signed (ES256): \(cold.ok) OK in "
            + "\(format(cold.seconds)) s = \(format(Double(cold.ok) / cold.seconds)) requests/s")
    // Wall-clock rates depend on what else the machine runs; CPU time per request (clients and server together,
    // all in this process) depends much less on it.
    for connections in [1, 4, 16] {
        let total = 40_000
        let warm = pass(connections: connections, requestsPerConnection: total / connections)
        print(
            "serve: Get All Subscription Statuses, \(connections) keep-alive connection(s): \(warm.ok) of \(total) OK "
                + "in \(format(warm.seconds)) s = \(format(Double(warm.ok) / warm.seconds)) requests/s (target 10,000); "
                + "CPU \(decimal(warm.cpu / Double(max(1, warm.ok)) * 1e6)) µs per request")
    }
}

/// A token of the form Apple's clients send (not signed: the benchmark's server checks no signature).
func benchToken(bundleId: String) -> String {
    let header = #"{"alg":"ES256","kid":"BENCHKEY01","typ":"JWT"}"#
    let payload = #"{"aud":"appstoreconnect-v1","bid":"\#(bundleId)","exp":4000000000,"iss":"bench"}"#
    return Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
        + Base64URL.encode([UInt8](repeating: 1, count: 64))
}

final class BenchCounter: @unchecked Sendable {
    let lock = NSLock()
    var value = 0
    func add(_ n: Int) {
        lock.lock()
        value += n
        lock.unlock()
    }
}

/// A minimal blocking HTTP/1.1 client over one keep-alive connection: answers are framed by Content-Length.
final class BenchConnection {
    let descriptor: Int32
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256 * 1024)

    init?(port: UInt16) {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if connected != 0 {
            closeDescriptor(descriptor)
            return nil
        }
    }

    /// Sends one request and reads its answer; the status, or 0 when the connection failed.
    func exchange(_ request: String) -> Int {
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return 0 }
            sent += n
        }
        while true {
            if let (status, length) = head(), pending.count >= length.headEnd + length.body {
                pending.removeFirst(length.headEnd + length.body)
                return status
            }
            let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return 0 }
            pending += buffer[0..<n]
        }
    }

    /// The status and sizes of the answer at the start of `pending`, once its head is complete.
    func head() -> (Int, (headEnd: Int, body: Int))? {
        guard pending.count >= 4 else { return nil }
        var end = -1
        for i in 0...(pending.count - 4)
        where pending[i] == 13 && pending[i + 1] == 10 && pending[i + 2] == 13 && pending[i + 3] == 10 {
            end = i + 4
            break
        }
        guard end > 0 else { return nil }
        let text = String(decoding: pending[0..<end], as: UTF8.self)
        let lines = text.split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var length = 0
        for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return (status, (end, length))
    }

    func close() { closeDescriptor(descriptor) }
}

private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

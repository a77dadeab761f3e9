// `simbench http-server`: requests per second of the HTTP/1.1 server (SimctlHTTP's HTTPServer) with a trivial
// handler, over keep-alive connections from client threads in this process (HTTPClient, one connection each). The
// clients share the machine's cores with the server, so the figure is a floor for the server alone.
import Foundation
import SimctlHTTP

/// Hands each client to the one thread that uses it.
private struct ClientBox: @unchecked Sendable {
    let client: HTTPClient
}

/// Sends `perClient` requests on each client, one thread per client; returns the number answered 200.
private func hammer(_ clients: [ClientBox], perClient: Int) -> Int {
    let group = DispatchGroup()
    let answered = AnsweredCount()
    for box in clients {
        group.enter()
        let thread = Thread {
            var ok = 0
            for _ in 0..<perClient {
                if case .success(let response) = box.client.post([]), response.status == 200 { ok += 1 }
            }
            answered.add(ok)
            group.leave()
        }
        thread.start()
    }
    group.wait()
    return answered.total
}

private final class AnsweredCount: @unchecked Sendable {
    let lock = NSLock()
    var total = 0

    func add(_ count: Int) {
        lock.lock()
        total += count
        lock.unlock()
    }
}

func runHTTPServerSection() {
    let body = Array("{\"ok\":true}".utf8)
    let server = try! HTTPServer { _ in
        HTTPResponse(
            status: 200, headers: HTTPHeaders([HTTPField(name: "Content-Type", value: "application/json")]), body: body)
    }
    server.start()
    defer { server.stop() }
    let endpoint = try! HTTPEndpoint(url: server.url + "/bench")
    print("http-server: POST with an empty body, a handler answering 11 bytes of JSON, keep-alive, client threads")
    print("  in this process (one HTTPClient connection each; clients and server share the cores)")
    let total = 20_000
    for threads in [1, 4, 16] {
        let clients = (0..<threads).map { _ in ClientBox(client: HTTPClient(endpoint: endpoint)) }
        let cpuBefore = processCPUSeconds()
        let runs = 5
        _ = measure("\(threads) connection\(threads == 1 ? "" : "s")", unit: "requests", runs: runs) {
            let answered = hammer(clients, perClient: total / threads)
            precondition(answered == total / threads * threads, "every request is answered 200")
            return answered
        }
        let cpuPerRequest = (processCPUSeconds() - cpuBefore) / Double((runs + 1) * (total / threads * threads))
        print("    CPU time, clients and server together: \(decimal(cpuPerRequest * 1e6)) µs per request")
        for box in clients { box.client.close() }
    }
}

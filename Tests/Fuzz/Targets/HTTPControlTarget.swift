// libFuzzer target: request bytes -> SimctlHTTP's request parser -> `HTTPRequest` (target decoding) -> the server's
// handler (`SimulatorServer.handle(http:)`: routing, bearer checks, the App Store Server API and the control API's
// JSON bodies: `/simctl/v1/advance`, `/simctl/v1/actions`, `/simctl/v1/reset`, ...). Every input must give parse
// errors or answers with a valid status, never a crash, a hang or unbounded memory.

import SimctlHTTP
@testable import SimctlServer
@testable import SubscriptionSimulator

/// The scenario every input is served from: one customer, one monthly subscription, decoded once. Each input gets a
/// fresh server (so an input's effect does not leak into the next and a finding reproduces from its file alone),
/// signing with the placeholder signer (ES256 under AddressSanitizer would make the fuzzer a signing benchmark).
let httpControlScenario: Scenario = {
    let text = """
        name: fuzz
        start: 2026-03-01T09:00:00Z
        seed: 7
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
          - { id: com.example.yearly, type: autoRenewable, group: pro, period: P1Y, price: 39.99 }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }
          - at: P2M
            cancel: { customer: alice, product: com.example.monthly }
        until: P6M
        """
    do { return try ScenarioDecoder(file: "fuzz.yaml").decode(text) } catch { fatalError("\(error)") }
}()

/// Requests one input may make (a pipeline of more only repeats what these exercise).
let httpControlRequestLimit = 8

/// One of the entries ``fuzzTestOneInput`` dispatches to (Entry.swift).
func fuzzHTTPControl(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let server: SimulatorServer
    do throws(ServerSetupError) {
        server = try SimulatorServer(
            configuration: ServerConfiguration(scenario: httpControlScenario, signer: UnsignedTestSigner()))
    } catch {
        fatalError("the fuzz scenario does not start: \(error)")
    }
    var parser = HTTPMessageParser(role: .request)
    // The first byte picks a chunk size, so the parser also sees a request arriving in pieces.
    let chunk = max(1, Int(bytes.first ?? 0))
    var offset = 0
    var handled = 0
    var failed = false
    while offset < bytes.count && !failed && handled < httpControlRequestLimit {
        let end = min(bytes.count, offset + chunk)
        parser.append(bytes[offset..<end])
        offset = end
        while !failed && handled < httpControlRequestLimit {
            do throws(HTTPParseError) {
                guard let message = try parser.next() else { break }
                fuzzHandle(message, on: server)
                handled += 1
            } catch {
                _ = error.description
                failed = true
            }
        }
    }
    if !failed && handled < httpControlRequestLimit {
        do throws(HTTPParseError) {
            if let message = try parser.endOfInput() { fuzzHandle(message, on: server) }
        } catch {
            _ = error.description
        }
    }
    return 0
}

/// Hands one parsed request to the server as `HTTPServer` would, and checks the answer can be sent.
func fuzzHandle(_ message: HTTPMessage, on server: SimulatorServer) {
    guard case .request(let method, let target, let version) = message.startLine else {
        fatalError("a request parser returned a response")
    }
    do throws(HTTPTargetError) {
        let request = try HTTPRequest(
            method: method, target: target, headers: message.headers, body: message.body, version: version)
        let response = server.handle(http: request)
        guard (200...599).contains(response.status) else {
            fatalError("the server answered status \(response.status) to \(method) \(target)")
        }
    } catch {
        _ = error.description
    }
}

// swift-tools-version:6.0
// simctl: a deterministic simulator of the App Store subscription lifecycle.
// The client's decision: no package dependencies; only the toolchain's Foundation, XCTest and Swift Testing.
import PackageDescription

let package = Package(
    name: "simctl",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "SubscriptionSimulator", targets: ["SubscriptionSimulator"]),
        .library(name: "SubscriptionSimulatorTesting", targets: ["SubscriptionSimulatorTesting"]),
        .executable(name: "simctl", targets: ["simctl"]),
        // HTTP for Swift test suites that want real requests: the HTTP/1.1 client, server and loopback receiver, and
        // the delivery pump's HTTP transport (docs/delivery.md).
        .library(name: "SimctlHTTP", targets: ["SimctlHTTP", "SimctlHTTPDelivery"]),
    ],
    targets: [
        // All behaviour: engine, catalog, lifecycle rules, family sharing, store, signing, wire formats, scenarios.
        .target(name: "SubscriptionSimulator", dependencies: ["SimctlCrypto"]),
        // Domain-free cryptography for test data, no dependencies and not a product (`package` access): SHA-256,
        // HMAC, P-256 ECDSA (RFC 6979), key encodings, base64, PEM, DER, X.509 certificates.
        .target(name: "SimctlCrypto", dependencies: ["CSHA256", "CP256", "CBase64"]),
        // SHA-256's compression function in C: the CPU's SHA instructions (x86-64 SHA-NI, ARMv8 SHA2) where
        // present, portable C otherwise (docs/signing.md). The project's own; no dependencies.
        .target(name: "CSHA256"),
        // P-256 field arithmetic in C for ES256 signing: Montgomery multiplication with 128-bit products and the
        // prime's own reduction, k*G's table sum, binary Euclidean inversion (docs/signing.md). The project's own.
        .target(name: "CP256"),
        // base64url in C: x86-64 SSSE3 (12 bytes to 16 characters per step) where present, portable C with a pair
        // table otherwise (docs/signing.md). The project's own; no dependencies.
        .target(name: "CBase64"),
        // Assertions for tests that embed the library (exhaustive notification checks, typed payloads); reports
        // failures to Swift Testing or XCTest, whichever runs the test. The only target that imports them.
        .target(name: "SubscriptionSimulatorTesting", dependencies: ["SubscriptionSimulator"]),
        // The command line as a library (argument parsing, commands, output, exit codes), so tests can call it.
        .target(
            name: "SimctlCommand",
            dependencies: [
                "SubscriptionSimulator", "SimctlCrypto", "SimctlHTTP", "SimctlHTTPDelivery", "SimctlURLSessionDelivery",
                "SimctlServer",
            ]),
        // HTTP/1.1 over sockets, no dependencies (nothing of the simulator): message parser, client, server, a
        // loopback receiver.
        .target(name: "SimctlHTTP"),
        // The delivery pump's HTTP transport: `SimctlHTTP`'s client as a `DeliveryTransport` (`--deliver URL`).
        .target(name: "SimctlHTTPDelivery", dependencies: ["SubscriptionSimulator", "SimctlHTTP"]),
        // The delivery pump's HTTPS transport (`--deliver https://...`): the toolchain's URLSession (FoundationNetworking
        // on Linux) with the system's trust store, kept out of the library (embedders do not pull in networking) and
        // out of `SimctlHTTP` (no TLS there). Not a product: the command line's.
        .target(name: "SimctlURLSessionDelivery", dependencies: ["SubscriptionSimulator"]),
        // `simctl serve`: one simulated store behind the App Store Server API (Apple's paths, shapes, errors and JWT
        // bearer checks), a control API (clock, actions, state, reset) and the delivery pump (docs/server.md).
        .target(name: "SimctlServer", dependencies: ["SubscriptionSimulator", "SimctlCrypto", "SimctlHTTP"]),
        // Thin executable: argv in, exit code out.
        .executableTarget(name: "simctl", dependencies: ["SimctlCommand"]),
        // Release-mode benchmark: `swift run -c release simbench`.
        .executableTarget(
            name: "simbench",
            dependencies: ["SubscriptionSimulator", "SimctlCrypto", "SimctlHTTP", "SimctlHTTPDelivery", "SimctlServer"]),
        // Golden files live beside the tests that read them (by path, not as resources).
        .testTarget(
            name: "SubscriptionSimulatorTests",
            dependencies: ["SubscriptionSimulator", "SubscriptionSimulatorTesting", "SimctlCrypto"],
            exclude: ["Golden"]),
        // The primitives against published vectors (FIPS, RFC, Wycheproof, NIST CAVP), committed in Vectors/.
        .testTarget(name: "SimctlCryptoTests", dependencies: ["SimctlCrypto"], exclude: ["Vectors"]),
        // Depends on the executable too, so `swift test` builds the binary its end-to-end tests run.
        // HTTP parser and client, and delivery end to end (the binary against a receiver on loopback).
        .testTarget(
            name: "SimctlHTTPTests",
            dependencies: [
                "SimctlHTTP", "SimctlHTTPDelivery", "SimctlURLSessionDelivery", "SimctlCommand",
                "SubscriptionSimulator", "simctl",
            ]),
        // The server's routes as pure request -> response calls, hostile requests, and `simctl serve` end to end.
        .testTarget(
            name: "SimctlServerTests",
            dependencies: [
                "SimctlServer", "SimctlHTTP", "SimctlCommand", "SubscriptionSimulator", "SimctlCrypto", "simctl",
            ]),
        .testTarget(
            name: "SimctlTests", dependencies: ["SimctlCommand", "SubscriptionSimulator", "SimctlCrypto", "simctl"]),
    ],
    swiftLanguageModes: [.v6]
)

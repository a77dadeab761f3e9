// swift-tools-version:6.0
// simctl: a deterministic simulator of the App Store subscription lifecycle.
// The client's decision: no package dependencies; only the toolchain's Foundation, XCTest and Swift Testing.
import PackageDescription

let package = Package(
    name: "simctl",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "SubscriptionSimulator", targets: ["SubscriptionSimulator"]),
        .executable(name: "simctl", targets: ["simctl"]),
    ],
    targets: [
        // All behaviour: engine, catalog, lifecycle rules, family sharing, store, wire formats, scenarios.
        .target(name: "SubscriptionSimulator"),
        // The command line as a library (argument parsing, commands, output, exit codes), so tests can call it.
        .target(name: "SimctlCommand", dependencies: ["SubscriptionSimulator"]),
        // Thin executable: argv in, exit code out.
        .executableTarget(name: "simctl", dependencies: ["SimctlCommand"]),
        // Release-mode benchmark: `swift run -c release simbench`.
        .executableTarget(name: "simbench", dependencies: ["SubscriptionSimulator"]),
        // Golden files live beside the tests that read them (by path, not as resources).
        .testTarget(
            name: "SubscriptionSimulatorTests", dependencies: ["SubscriptionSimulator"],
            exclude: ["Golden", "Signing/Vectors"]),
        // Depends on the executable too, so `swift test` builds the binary its end-to-end tests run.
        .testTarget(name: "SimctlTests", dependencies: ["SimctlCommand", "SubscriptionSimulator", "simctl"]),
    ],
    swiftLanguageModes: [.v6]
)

/// The version `simctl --version` prints.
public let simctlVersion = "0.1.0"

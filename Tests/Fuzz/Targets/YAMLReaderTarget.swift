// libFuzzer target: the YAML subset reader (text -> located nodes). Every input must give a tree or a YAMLError.

@testable import SubscriptionSimulator

/// One of the entries ``fuzzTestOneInput`` dispatches to (Entry.swift).
func fuzzYAMLReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do throws(YAMLError) {
        let node = try YAMLReader.parse(text)
        _ = node.kindDescription
    } catch {
        _ = error.description
    }
    return 0
}

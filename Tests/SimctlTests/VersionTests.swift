import Testing
@testable import SimctlCommand

@Test func versionIsSemantic() { #expect(simctlVersion.split(separator: ".").count == 3) }

/// The version `simctl --version` prints.
package let simctlVersion = "0.2.0"

/// The commit the binary was built from. `.dist/build.sh` writes it into its own copy of the sources before the
/// release build (docs/install.md); a development build (`swift build`, `swift run`) leaves it empty.
package let simctlCommit = ""

/// `simctl --version`'s line: the version, then the commit or that this is a development build.
package var simctlVersionLine: String {
    "simctl \(simctlVersion) (" + (simctlCommit.isEmpty ? "development build" : "commit \(simctlCommit)") + ")"
}

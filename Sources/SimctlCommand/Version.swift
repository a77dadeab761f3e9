/// The version `simctl --version` prints.
package let simctlVersion = "0.1.0"

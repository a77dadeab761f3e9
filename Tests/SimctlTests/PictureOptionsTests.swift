import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlCommand

/// `simctl run --format svg --customers ... --from ... --to ... --axis ...`: what the picture shows, checked against
/// the scenario; a mistake is a usage error (exit 64) naming the option.
@Suite struct PictureOptionsTests {
    static let file = SimctlProcess.packageRoot.appendingPathComponent("Scenarios/family-stop-sharing.yaml").path

    @Test func theOptionsChooseTheLanesTheWindowAndTheAxis() {
        let all = Simctl.main(["run", Self.file, "--format", "svg"])
        #expect(all.exitCode == 0 && all.stdout.contains(">bob</text>"))
        let chosen = Simctl.main([
            "run", Self.file, "--format", "svg", "--customers", "bob", "--from", "1h", "--to=P1M", "--axis", "offsets",
        ])
        #expect(chosen.exitCode == 0, "\(chosen.stderr)")
        #expect(chosen.stdout.contains(">bob</text>") && !chosen.stdout.contains(">alice</text>"))
        #expect(chosen.stdout.contains("window 2026-") && chosen.stdout.contains(">+7d</text>"))
    }

    @Test func mistakesAreUsageErrors() {
        for (arguments, message) in [
            (["--customers", "zed"], "option '--customers' no customer 'zed' in the scenario"),
            (["--customers", "z*"], "option '--customers' the pattern 'z*' matches none"),
            (["--from", "later"], "option '--from' needs an offset from the start"),
            (["--from", "10d", "--to", "1d"], "option '--to' must be later than --from"),
            (["--axis", "weeks"], "option '--axis' needs dates or offsets, found 'weeks'"),
            (["--axis", "dates", "--axis", "dates"], "option '--axis' is given twice"),
        ] {
            let output = Simctl.main(["run", Self.file, "--format", "svg"] + arguments)
            #expect(output.exitCode == 64 && output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
        let notPicture = Simctl.main(["run", Self.file, "--customers", "bob"])
        #expect(
            notPicture.exitCode == 64
                && notPicture.stderr.contains(
                    "option '--customers' applies to the picture: give '--format svg' or '--out DIR'")
        )
    }
}

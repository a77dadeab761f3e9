import SubscriptionSimulator

// The `picture` section (issue 28, the `svg` format; issue 49, the overview of a large run): the picture sink over the
// scale scenario's notifications (Tests/Scale/generate_scenario.py's, built in-process), the run itself not timed:
// the time to take the run in (add) and to draw the overview (draw), and the size of the SVG with the default caps
// and with 1,000 lanes. Issue 49 asks for an overview of 10,000 customers in under 1 s with the release binary and
// under 1 MB.
func runPictureSection() {
    print("picture (the svg format: TimelinePicture over the Tests/Scale scenario's run)")
    let clock = ContinuousClock()
    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
    for customers in [1_000, 10_000, 50_000] {
        let scenario = try! ScenarioDecoder(file: "scale.yaml").decode(scaleScenarioYAML(customers: customers))
        let run = ScenarioRunner.execute(scenario)
        let notifications = run.store.notifications
        let changes = run.store.entitlementChanges
        var bytes = 0
        _ = measure(
            "\(customers) customers, \(notifications.count) notifications: add + draw", unit: "notifications", runs: 3
        ) {
            var picture = TimelinePicture(scenario: scenario)
            picture.add(notifications[...], changes[...])
            bytes = picture.svg(until: scenario.until).utf8.count
            return notifications.count
        }
        // One overview, timed in its two parts (the median of three).
        var adds: [Double] = []
        var draws: [Double] = []
        for _ in 0..<3 {
            var picture = TimelinePicture(scenario: scenario)
            adds.append(seconds(clock.measure { picture.add(notifications[...], changes[...]) }))
            draws.append(seconds(clock.measure { bytes = picture.svg(until: scenario.until).utf8.count }))
        }
        adds.sort()
        draws.sort()
        print(
            "    overview of \(customers) customers: add \(format(adds[1] * 1000)) ms + draw \(format(draws[1] * 1000)) "
                + "ms = \(format((adds[1] + draws[1]) * 1000)) ms; SVG \(bytes) bytes")
        var wide = TimelinePicture.Caps()
        wide.lanes = 1_000
        var many = TimelinePicture(scenario: scenario, caps: wide)
        many.add(notifications[...], changes[...])
        let capped = many.svg(until: scenario.until).utf8.count
        print("    SVG \(bytes) bytes with the default caps; \(capped) bytes with 1,000 lanes (other caps default)")
    }
}

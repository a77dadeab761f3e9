import SubscriptionSimulator

// The `picture` section (issue 28, the `svg` format): the picture sink's rate over the scale scenario's notifications
// (Tests/Scale/generate_scenario.py's, built in-process), the run itself not timed, and the size of the SVG with the
// default caps and with 1,000 lanes (where the marker and phase caps hold the file).
func runPictureSection() {
    print("picture (the svg format: TimelinePicture over the Tests/Scale scenario's run)")
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
        var wide = TimelinePicture.Caps()
        wide.lanes = 1_000
        var many = TimelinePicture(scenario: scenario, caps: wide)
        many.add(notifications[...], changes[...])
        let capped = many.svg(until: scenario.until).utf8.count
        print("    SVG \(bytes) bytes with the default caps; \(capped) bytes with 1,000 lanes (other caps default)")
    }
}

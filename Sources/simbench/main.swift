// Release-mode benchmark: `swift run -c release simbench`.
// The only place in the project that reads a clock (a monotonic one, to time runs); nothing here is asserted, the
// figures are printed. Machines are noisy: compare medians and ratios, not single runs.
import SubscriptionSimulator

struct Measurement {
    var name: String
    var unit: String
    var perSecond: [Double]

    var sorted: [Double] { perSecond.sorted() }
    var median: Double { sorted[sorted.count / 2] }
}

func measure(_ name: String, unit: String, runs: Int, work: Int, _ body: () -> Void) -> Measurement {
    let clock = ContinuousClock()
    body()  // warm-up
    var rates: [Double] = []
    for _ in 0..<runs {
        let elapsed = clock.measure(body)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        rates.append(Double(work) / seconds)
    }
    let m = Measurement(name: name, unit: unit, perSecond: rates)
    print("\(name): median \(format(m.median)) \(unit)/s (min \(format(m.sorted.first!)), max \(format(m.sorted.last!))) over \(runs) runs")
    return m
}

func format(_ value: Double) -> String {
    if value >= 1e6 { return String(Int((value / 1e4).rounded())).withDecimal(2) + " M" }
    if value >= 1e3 { return String(Int((value / 10).rounded())).withDecimal(2) + " k" }
    return String(Int(value.rounded()))
}

extension String {
    func withDecimal(_ places: Int) -> String {
        let padded = count <= places ? String(repeating: "0", count: places - count + 1) + self : self
        return String(padded.dropLast(places)) + "." + String(padded.suffix(places))
    }
}

var sink = 0
let eventCount = 1_000_000
let yearMs = 365 * 86_400_000
var random = RandomSource(seed: 2026)
let instants = (0..<eventCount).map { _ in Instant(millisecondsSince1970: Int64(random.nextInt(in: 0...yearMs))) }
let priorities = (0..<eventCount).map { _ in random.nextInt(in: 0...1) }

print("simbench (release build expected; debug builds are many times slower)")
let queue = measure("event queue: schedule then pop 1,000,000 events", unit: "events", runs: 7, work: eventCount) {
    var q = EventQueue<Int>()
    for i in 0..<eventCount { q.schedule(i, at: instants[i], priority: priorities[i]) }
    while let e = q.popNext() { sink &+= e.payload }
}

let holdSize = 10_000
let holdOps = 1_000_000
_ = measure("event queue: hold pattern (pop one, schedule one later) at 10,000 pending, 1,000,000 operations", unit: "operations", runs: 7, work: holdOps) {
    var q = EventQueue<Int>()
    for i in 0..<holdSize { q.schedule(i, at: instants[i]) }
    for i in 0..<holdOps {
        let e = q.popNext()!
        q.schedule(i, at: e.instant.adding(milliseconds: Int64(instants[i].millisecondsSince1970 % 86_400_000)))
    }
    sink &+= q.count
}

// One year of a monthly subscription: purchase, renewals, a billing failure in month 6 recovered 10 days later
// (inside a 16-day grace period), renewals to the end of the year: 5 renewals before the failure, then more.
let monthly = Product(id: "bench.monthly", type: .autoRenewable, group: "bench", period: .oneMonth, price: Price(decimal: "9.99")!)
let catalog = try! Catalog(products: [monthly])
let app = AppConfiguration(bundleId: "com.example.bench", gracePeriod: .sixteenDays)
let start = CalendarMath.instant(year: 2026, month: 1, day: 1, hour: 9)
let lifecycles = 20_000
var notificationsPerLifecycle = 0
func oneYear(seed: UInt64) -> SimulatedStore {
    var store = SimulatedStore(app: app, catalog: catalog, start: start, seed: seed)
    try! store.purchase(monthly.id, by: "alice")
    try! store.advance(to: start.adding(CalendarDuration(months: 5, days: 20)))
    store.failBilling(for: "alice")
    try! store.advance(to: start.adding(CalendarDuration(months: 6, days: 10)))
    try! store.fixBilling(for: "alice")
    try! store.advance(to: start.adding(.years(1)))
    return store
}

let lifecycle = measure("one-year monthly lifecycle (5 renewals, a billing failure, recovery in grace), in process", unit: "lifecycles", runs: 7, work: lifecycles) {
    for n in 0..<lifecycles {
        let store = oneYear(seed: UInt64(n))
        notificationsPerLifecycle = store.notifications.count
        sink &+= store.notifications.count
    }
}
print("(each lifecycle emits \(notificationsPerLifecycle) notifications)")

let encodeRuns = 2_000
_ = measure("the same lifecycle, also encoding every notification as a signed POST body", unit: "lifecycles", runs: 5, work: encodeRuns) {
    for n in 0..<encodeRuns {
        let store = oneYear(seed: UInt64(n))
        let encoder = NotificationEncoder(app: app)
        for notification in store.notifications { sink &+= encoder.encode(notification).postBody.utf8.count }
    }
}

print("targets on the 2-core CI machine: queue >= 10 M events/s -> \(queue.median >= 10e6 ? "met" : "NOT met"); lifecycles >= 20 k/s -> \(lifecycle.median >= 20e3 ? "met" : "NOT met")")
if sink == 42 { print("") }  // keeps the work observable

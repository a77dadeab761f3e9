/// The actions a case may draw, worked out once from the catalogue and the people: every action of the scenario
/// vocabulary that applies (docs/check.md, "What is generated"). An action the catalogue cannot support (a plan change
/// in a group of one product, an offer of a product without offers, family actions without a family) is never drawn.
/// Arguments are drawn too; the store decides whether the action may happen now.
/// The kinds and their weights come from the action table (``ScenarioActionSpec/draws``).
struct ActionVocabulary: Sendable {
    /// What the drawn actions may name.
    var pools: ActionPools
    /// The draws that apply, in the generator's order (``CheckDraw/rank``).
    let kinds: [CheckDraw]
    let totalWeight: Int
    /// The actions that may be drawn with their weights (the sums of their draws'), in the action table's order.
    let used: [VocabularyEntry]

    var people: [String] { pools.people }

    init(catalog: Catalog, people: [String], family: FamilySpec?, choice: VocabularyChoice? = nil) {
        pools = ActionPools(catalog: catalog, people: people, family: family)
        let pools = pools
        var named: [(name: String, draw: CheckDraw)] = []
        for spec in ScenarioActionSpec.all {
            guard choice?.includes(spec.name) ?? true else { continue }
            let total = spec.draws.reduce(0) { $0 + $1.weight }
            for draw in spec.draws {
                named.append((spec.name, choice.map { $0.reweighted(draw, of: spec.name, total: total) } ?? draw))
            }
        }
        let drawn = named.sorted { $0.draw.rank < $1.draw.rank }.filter { $0.draw.weight > 0 && $0.draw.when(pools) }
        kinds = drawn.map(\.draw)
        totalWeight = kinds.reduce(0) { $0 + $1.weight }
        used = ScenarioActionSpec.all.compactMap { spec in
            let weight = drawn.filter { $0.name == spec.name }.reduce(0) { $0 + $1.draw.weight }
            return weight > 0 ? VocabularyEntry(name: spec.name, weight: weight) : nil
        }
    }

    /// Remembers what an applied action changed that later draws depend on (prices; ``CheckFollowUp/note``).
    mutating func note(_ action: ScenarioAction) { action.spec.followUp?.note(action, &pools) }

    /// Draws one action with its arguments. Half of the time the customer is `previous` (the last action's), so that
    /// one customer's actions follow each other closely (a refund soon after a purchase, a fix after a failure).
    func draw(_ random: inout RandomSource, store: SimulatedStore, previous: String? = nil) -> ScenarioAction {
        var choice = random.nextInt(in: 0...max(0, totalWeight - 1))
        var kind = kinds.first ?? ScenarioActionSpec.requestTestNotification.draws[0]
        for entry in kinds {
            if choice < entry.weight {
                kind = entry
                break
            }
            choice -= entry.weight
        }
        let other = people[random.nextInt(in: 0...people.count - 1)]
        let customer = previous.map { random.nextDouble() < 0.5 ? $0 : other } ?? other
        var drawing = ActionDraw(random: random, customer: customer, store: store, pools: pools)
        let action = kind.draw(&drawing)
        random = drawing.random
        return action
    }

    /// An action that only makes sense right after `action` and is drawn then (at the same instant), or nil
    /// (``CheckFollowUp/next``): the developer's consumption information after a refund request (within 12 hours of
    /// it), a customer's consent after a price increase that needs it.
    func followUp(after action: ScenarioAction, _ random: inout RandomSource) -> ScenarioAction? {
        action.spec.followUp?.next(action, &random, people)
    }
}

/// One action of the vocabulary a check drew from, with its weight (``CheckReport/vocabulary``).
public struct VocabularyEntry: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var weight: Int
    public var description: String { "\(name) \(weight)" }
}

/// Which actions a check may draw (`simctl check --actions LIST`, `--without LIST`, `--weights FILE`;
/// docs/check.md, "Choosing the vocabulary").
public struct VocabularyChoice: Hashable, Sendable {
    /// Only these actions (nil: every action of the table).
    public var only: Set<String>?
    /// Never these.
    public var without: Set<String>
    /// Per action, its weight, replacing the table's: the action's draws (`refundTransaction` has two: of a past
    /// transaction, prorated) share it in the table's proportions. Given any, every weight is scaled
    /// by 100 so that the shares stay whole numbers. 0 leaves the action out.
    public var weights: [String: Int]

    public init(only: Set<String>? = nil, without: Set<String> = [], weights: [String: Int] = [:]) {
        self.only = only
        self.without = without
        self.weights = weights
    }

    /// The actions generation can draw, in the action table's order (the names `--actions` takes).
    public static var actionNames: [String] { ScenarioActionSpec.all.filter { !$0.draws.isEmpty }.map(\.name) }

    /// The first name that is not one of ``actionNames``, with a suggestion when one is close.
    public static func unknown(_ names: some Sequence<String>) -> String? {
        for name in names where !actionNames.contains(name) {
            let suggestion = Suggestions.closest(to: name, among: actionNames).map { " (did you mean '\($0)'?)" } ?? ""
            return "unknown action '\(name)'\(suggestion); the actions are \(actionNames.joined(separator: ", "))"
        }
        return nil
    }

    func includes(_ name: String) -> Bool {
        (only?.contains(name) ?? true) && !without.contains(name) && weights[name] != 0
    }

    func reweighted(_ draw: CheckDraw, of name: String, total: Int) -> CheckDraw {
        guard !weights.isEmpty else { return draw }
        var weight = draw.weight * 100
        if let given = weights[name], total > 0 { weight = max(1, given * 100 * draw.weight / total) }
        return CheckDraw(rank: draw.rank, weight: weight, when: draw.when, draw.draw)
    }

    /// Reads a weights file: one `ACTION WEIGHT` per line (a whole number from 0 to 1000), `#` starting a comment,
    /// blank lines ignored, each action at most once. Errors name the file, line and column.
    public static func weights(from text: String, file: String) throws(ScenarioError) -> [String: Int] {
        var result: [String: Int] = [:]
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            var words: [(column: Int, text: String)] = []
            var column = 1
            var current = ""
            var start = 1
            for character in content {
                if character == " " || character == "\t" || character == "\r" {
                    if !current.isEmpty { words.append((start, current)) }
                    current = ""
                } else {
                    if current.isEmpty { start = column }
                    current.append(character)
                }
                column += 1
            }
            if !current.isEmpty { words.append((start, current)) }
            guard !words.isEmpty else { continue }
            func fail(_ column: Int, _ message: String) -> ScenarioError {
                ScenarioError(file: file, location: SourceLocation(line: line, column: column), message: message)
            }
            guard words.count == 2 else {
                let at = words.count > 2 ? words[2].column : words[0].column + words[0].text.count
                throw fail(
                    at,
                    "expected 'ACTION WEIGHT' (such as 'refund 2'), found '\(words.map(\.text).joined(separator: " "))'"
                )
            }
            if let problem = unknown([words[0].text]) { throw fail(words[0].column, problem) }
            guard let weight = Int(words[1].text), (0...1000).contains(weight) else {
                throw fail(
                    words[1].column, "expected a weight, a whole number from 0 to 1000, found '\(words[1].text)'")
            }
            guard result[words[0].text] == nil else {
                throw fail(words[0].column, "action '\(words[0].text)' is given twice")
            }
            result[words[0].text] = weight
        }
        return result
    }
}

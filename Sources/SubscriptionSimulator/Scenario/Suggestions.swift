/// "Did you mean" suggestions for misspelled keys, actions, products and customers.
package enum Suggestions {
    /// The candidate closest to `word` by edit distance (Damerau–Levenshtein, case-insensitive), if it is close
    /// enough to be a plausible typo: at most a third of the longer word's length, and at least 1.
    package static func closest(to word: String, among candidates: [String]) -> String? {
        var best: (String, Int)?
        for candidate in candidates where candidate != word {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            let limit = max(1, max(word.count, candidate.count) / 3)
            guard distance <= limit else { continue }
            if best == nil || distance < best!.1 { best = (candidate, distance) }
        }
        return best?.0
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}

import Foundation

// The check's reports for CI (docs/check.md, "Reports"): `summary.json` and JUnit XML, written from a ``CheckReport``.
// Moved here from the command layer (issue 44) so the report and its serialisations live together.

extension CheckReport {
    /// `summary.json` of a `--keep-going` check: the counts, the vocabulary, the epochs and one entry per class.
    package func summaryJSON(seconds: Double) throws -> Data {
        let report = self
        let classes: [[String: Any]] = report.findings.map { finding in
            let example = finding.counterexample
            var entry: [String: Any] = [
                "number": finding.number, "class": finding.findingClass.description,
                "kind": finding.findingClass.kind.rawValue, "notification": finding.findingClass.notification,
                "cause": finding.findingClass.cause, "cases": finding.cases.count,
                "caseNumbers": finding.cases, "firstCase": finding.cases.first ?? 0,
                "timelineEntries": example.scenario.timeline.count,
                "deliveryFaults": example.scenario.deliveryFaults.count, "shrinkSteps": example.shrinkSteps,
                "yaml": "counterexample-\(finding.number).yaml", "jsonl": "counterexample-\(finding.number).jsonl",
                "divergence": example.divergence.description, "epoch": example.scenario.epoch,
            ]
            if let refusal = example.divergence.refusal {
                entry["httpStatus"] = refusal.httpStatus
                entry["responseStart"] = refusal.responseStart ?? ""
            }
            return entry
        }
        let summary: [String: Any] = [
            "seed": report.seed, "cases": report.cases, "notifications": report.notifications,
            "deliveries": report.deliveries, "checkpoints": report.checkpoints, "stoppedEarly": report.stoppedEarly,
            "tolerated": report.tolerated, "acceptedRefusals": report.acceptedRefusals,
            "firstEpoch": report.firstEpoch, "nextEpoch": report.nextEpoch,
            "vocabulary": report.vocabulary.map { ["action": $0.name, "weight": $0.weight] as [String: Any] },
            "classes": classes, "seconds": (seconds * 10).rounded() / 10,
        ]
        return try JSONSerialization.data(withJSONObject: summary, options: [.prettyPrinted, .sortedKeys])
            + Data("\n".utf8)
    }

    /// `--keep-going` as JUnit XML: one testcase per class (a failure with its shrunk divergence), or one passing
    /// testcase when no class was found; a check that cannot judge the backend, one error.
    package func junitClassesXML(seconds: Double) -> String {
        let report = self
        let escape = XMLText.escape
        var lines: [String] = []
        var errors = 0
        for finding in report.findings {
            let text = "\(finding.findingClass) in \(finding.cases.count) cases\n\(finding.counterexample)"
            lines.append(
                "    <testcase classname=\"simctl.check\" name=\"class \(finding.number): "
                    + "\(escape(finding.findingClass.description))\">\n      <failure message=\""
                    + escape(finding.findingClass.description) + "\">" + escape(text) + "</failure>\n    </testcase>")
        }
        if case .cannotJudge(let number, let message) = report.verdict {
            errors = 1
            lines.append(
                "    <testcase classname=\"simctl.check\" name=\"case \(number) (seed \(report.seed))\">\n"
                    + "      <error message=\"cannot be judged\">\(escape(message))</error>\n    </testcase>")
        } else if report.findings.isEmpty {
            lines.append(
                "    <testcase classname=\"simctl.check\" name=\"\(report.cases) cases (seed \(report.seed))\"/>")
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites>
              <testsuite name="simctl check" tests="\(lines.count)" failures="\(report.findings.count)" \
            errors="\(errors)" time="\(String(format: "%.3f", seconds))">
            \(lines.joined(separator: "\n"))
              </testsuite>
            </testsuites>

            """
    }

    /// The report as JUnit XML: one testcase per case run; the diverging case a failure, a case that cannot be
    /// judged an error.
    package func junitXML(seconds: Double) -> String {
        let report = self
        let escape = XMLText.escape
        var failures = 0
        var errors = 0
        var cases: [String] = []
        for number in 1...max(report.cases, 1) where number <= report.cases {
            var line = "    <testcase classname=\"simctl.check\" name=\"case \(number) (seed \(report.seed))\""
            switch report.verdict {
            case .diverges(let counterexample) where counterexample.caseNumber == number:
                failures += 1
                line +=
                    ">\n      <failure message=\"\(escape("diverges: \(counterexample.divergence.kind.rawValue)"))\">"
                    + escape(counterexample.description) + "</failure>\n    </testcase>"
            case .cannotJudge(let caseNumber, let message) where caseNumber == number:
                errors += 1
                line +=
                    ">\n      <error message=\"\(escape("cannot be judged"))\">\(escape(message))</error>\n"
                    + "    </testcase>"
            case .agrees, .diverges, .cannotJudge:
                line += "/>"
            }
            cases.append(line)
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites>
              <testsuite name="simctl check" tests="\(report.cases)" failures="\(failures)" errors="\(errors)" \
            time="\(String(format: "%.3f", seconds))">
            \(cases.joined(separator: "\n"))
              </testsuite>
            </testsuites>

            """
    }
}

/// Text for XML documents (the JUnit reports).
package enum XMLText {
    /// `text` escaped for XML text and attribute values (control characters other than tab and newline dropped).
    package static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

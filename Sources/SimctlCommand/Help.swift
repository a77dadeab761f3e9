/// `simctl help`, `simctl help COMMAND` and the usage printed with a usage error, rendered from the command table
/// (CommandTable.swift): the USAGE lines and the options come from the declarations, the prose from each command's
/// ``HelpPage``. Only simctl's own overview words (first steps, exit codes) are written here.
package enum HelpText {
    /// No help line is wider (the width the hand-written texts were wrapped at).
    package static let width = 108
    /// Where an option's text starts: two spaces, then the label padded to 20.
    static let optionColumn = 22

    package static var overview: String {
        var lines = [
            "simctl \(simctlVersion): simulate the App Store subscription lifecycle and its server notifications", "",
            "USAGE: simctl <command> [options]", "",
            "A FIRST NOTIFICATION: simctl trigger REFUND --deliver http://127.0.0.1:8080/asn   (docs/trigger.md)",
            "A WHOLE BACKEND:      simctl check SCENARIO --deliver URL --entitlements TEMPLATE   (docs/check.md)", "",
        ]
        var commands = CommandTable.entries.map { entry in
            HelpRow(
                ([entry.info.name, entry.info.positional].filter { !$0.isEmpty }).joined(separator: " "),
                entry.info.summary)
        }
        commands.append(HelpRow("help [COMMAND]", "Show help for simctl or one command"))
        lines += block(.rows("COMMANDS", commands))
        lines.append("")
        let global = CommandTable.globalOptions.map { HelpRow($0.names.reversed().joined(separator: ", "), $0.summary) }
        lines += block(.rows("OPTIONS", global))
        lines.append("")
        lines += block(.rows("EXIT CODES", exitCodes))
        lines.append("")
        lines += wrap(
            "See 'simctl help COMMAND' for a command's options, docs/cli.md for the command line, and "
                + "docs/scenario-format.md for the file format.", indent: 0)
        return lines.joined(separator: "\n")
    }

    /// simctl's exit codes (the overview's table; a command's own meanings are in its help).
    static let exitCodes = [
        HelpRow("0", "success, and every expectation in the scenario holds"),
        HelpRow(
            "1", "an expectation failed (each failure is printed with what was expected and what happened)"),
        HelpRow("2", "--deliver: a notification is undelivered after its last attempt"),
        HelpRow("3", "trigger --tamper --deliver: the endpoint accepted a notification that fails verification"),
        HelpRow("64", "bad usage"),
        HelpRow("65", "invalid scenario or .storekit file"),
        HelpRow("66", "the input file cannot be read"),
        HelpRow("73", "the --out folder or the --delivery-log file cannot be written"),
        HelpRow(
            "74",
            "writing standard output or the delivery log failed (full disk, I/O error; a closed pipe ends simctl "
                + "quietly by SIGPIPE instead)"),
    ]

    /// `simctl help TOPIC` (the overview for nil or an unknown topic).
    package static func text(for topic: String?) -> String {
        guard let topic, let entry = CommandTable.command(named: topic) else { return overview }
        return page(entry).joined(separator: "\n")
    }

    /// The usage that follows a usage error: the command's USAGE lines, `usage:` in place of `USAGE:`.
    package static func usageLine(for topic: String?) -> String {
        guard let topic, let entry = CommandTable.command(named: topic) else {
            return "usage: simctl <command> [options]   (commands: \(CommandTable.names.joined(separator: ", ")))"
        }
        return usage(entry, heading: "usage: ").joined(separator: "\n")
    }

    // MARK: Rendering

    /// The USAGE lines: the generated form of the command (or of each subcommand), then its declared forms.
    static func usage(_ entry: CommandEntry, heading: String = "USAGE: ") -> [String] {
        let commands = entry.subcommands.isEmpty ? [entry.info] : entry.subcommands
        var lines: [String] = []
        for command in commands {
            let prefix = (lines.isEmpty ? heading : String(repeating: " ", count: heading.count)) + "simctl "
            lines += wrapItems(command.name, usageItems(command), prefix: prefix)
            for form in command.page.forms {
                let items = usageWords(form)
                let prefix = String(repeating: " ", count: heading.count) + "simctl "
                lines += wrapItems(items[0], Array(items.dropFirst()), prefix: prefix)
            }
        }
        return lines
    }

    /// A value as usage and the rows show it: a short list of words stands for itself (`timeline|jsonl|decoded|svg`),
    /// anything else by its placeholder.
    static func value(_ placeholder: String, _ value: OptionValue) -> String {
        if case .choices(let words) = value, words.joined(separator: "|").count <= 30 {
            return words.joined(separator: "|")
        }
        return placeholder
    }

    /// `--name VALUE`, or the name alone for a flag.
    static func label(_ option: OptionInfo) -> String {
        option.isFlag ? option.name : "\(option.name) \(value(option.placeholder, option.value))"
    }

    /// A declared form's items: its words, a bracketed group (`[--port P ...]`) kept as one.
    static func usageWords(_ form: String) -> [String] {
        var items: [String] = []
        var item = ""
        var depth = 0
        for character in form {
            if character == " " && depth == 0 {
                if !item.isEmpty { items.append(item) }
                item = ""
                continue
            }
            if character == "[" { depth += 1 }
            if character == "]" { depth -= 1 }
            item.append(character)
        }
        if !item.isEmpty { items.append(item) }
        return items
    }

    /// `FILE --deliver URL [--out DIR] [--ca-seed TEXT | --signing-chain DIR] [--name HOST ...]`.
    static func usageItems(_ command: CommandInfo) -> [String] {
        var items = command.positional.isEmpty ? [] : [value(command.positional, command.positionalValue)]
        func form(_ option: OptionInfo) -> String { label(option) + (option.repeatable ? " ..." : "") }
        let byName = Dictionary(command.options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        items += command.page.required.compactMap { byName[$0].map(form) }
        var done = Set(command.page.required)
        for option in command.options where !done.contains(option.name) {
            if let group = command.exclusive.first(where: { $0.contains(option.name) }) {
                let members = group.compactMap { byName[$0] }
                items.append("[" + members.map(form).joined(separator: " | ") + "]")
                done.formUnion(group)
            } else {
                items.append("[" + form(option) + "]")
                done.insert(option.name)
            }
        }
        return items
    }

    /// `name` and its items after `prefix`; an item that would pass the width starts a new line, indented to the
    /// first item.
    static func wrapItems(_ name: String, _ items: [String], prefix: String) -> [String] {
        let indent = String(repeating: " ", count: prefix.count + name.count + 1)
        var lines: [String] = []
        var line = prefix + name
        var fresh = false
        for item in items {
            if !fresh && line.count + 1 + item.count > width {
                lines.append(line)
                line = indent + item
            } else {
                line += (fresh ? "" : " ") + item
            }
            fresh = false
        }
        lines.append(line)
        return lines
    }

    /// A command's whole help.
    static func page(_ entry: CommandEntry) -> [String] {
        let commands = [entry.info] + entry.subcommands
        var lines = usage(entry)
        for block in entry.info.page.about {
            lines.append("")
            lines += self.block(block)
        }
        for sub in entry.subcommands where !sub.page.about.isEmpty {
            lines.append("")
            for block in sub.page.about {
                lines += self.block(block, label: String(sub.name.dropFirst(entry.info.name.count + 1)))
            }
        }
        // The options, each once: the command's own under OPTIONS (a subcommand's under its name), then each
        // shared section's.
        var sections: [(title: String, note: String, options: [OptionInfo])] = []
        for command in commands {
            for option in command.options {
                let title =
                    option.section?.title ?? (command.name == entry.info.name ? "OPTIONS" : "\(command.name) OPTIONS")
                if let index = sections.firstIndex(where: { $0.title == title }) {
                    if !sections[index].options.contains(where: { $0.name == option.name }) {
                        sections[index].options.append(option)
                    }
                } else {
                    sections.append((title, option.section?.note ?? "", [option]))
                }
            }
        }
        let own = sections.filter { $0.title.hasSuffix("OPTIONS") }
        for section in own + sections.filter({ !$0.title.hasSuffix("OPTIONS") }) {
            lines.append("")
            lines.append(section.title + ":")
            for option in section.options { lines += rows(option) }
            if !section.note.isEmpty { lines += wrap(section.note, indent: 2) }
        }
        let variables =
            entry.info.page.environment
            + entry.info.options.compactMap { option in
                option.environment.map {
                    HelpRow($0, option.isFlag ? option.name : "\(option.name) \(option.placeholder)")
                }
            }
        if !variables.isEmpty {
            lines.append("")
            lines += block(
                .rows(
                    "ENVIRONMENT (for containers; an option on the command line wins, an empty variable is unset)",
                    variables))
        }
        for block in entry.info.page.notes {
            lines.append("")
            lines += self.block(block)
        }
        let examples = commands.flatMap(\.page.examples)
        if !examples.isEmpty {
            lines.append("")
            lines.append("EXAMPLES:")
            for example in examples {
                // A long one goes on over the next lines as a shell continues a line (` \`).
                var line = "  simctl"
                for word in example.split(separator: " ") {
                    if line.count + 1 + word.count + 2 > width {
                        lines.append(line + " \\")
                        line = "      " + word
                    } else {
                        line += " " + word
                    }
                }
                lines.append(line)
            }
        }
        return lines
    }

    /// An option's rows: `--name PLACEHOLDER  text`, or one row per value when it has a text per value.
    static func rows(_ option: OptionInfo) -> [String] {
        if !option.valueHelp.isEmpty {
            return option.valueHelp.flatMap { row("\(option.name) \($0.label)", $0.text, column: optionColumn) }
        }
        return row(label(option), option.helpText, column: optionColumn)
    }

    static func block(_ block: HelpBlock, label: String? = nil) -> [String] {
        switch block {
        case .paragraph(let text):
            if let label { return row(label, text, column: optionColumn, indent: 0) }
            return wrap(text, indent: 0)
        case .titled(let title, let text): return [title + ":"] + wrap(text, indent: 2)
        case .rows(let title, let rows):
            let column = min(2 + (rows.map(\.label.count).max() ?? 0) + 2, optionColumn)
            return [title + ":"] + rows.flatMap { row($0.label, $0.text, column: column) }
        }
    }

    /// `label` at `indent`, then `text` wrapped from `column` (on the label's line when the label leaves two spaces).
    static func row(_ label: String, _ text: String, column: Int, indent: Int = 2) -> [String] {
        let head = String(repeating: " ", count: indent) + label
        var lines = wrap(text, indent: column)
        let first = lines[0].dropFirst(column)
        if head.count + 2 <= column {
            lines[0] = head.padding(toLength: column, withPad: " ", startingAt: 0) + first
        } else if head.count + 2 + first.count <= width {
            lines[0] = head + "  " + first
        } else {
            lines = [head] + lines
        }
        return lines
    }

    /// `text` wrapped at ``width``, each line indented by `indent`; a newline in `text` starts a new line.
    static func wrap(_ text: String, indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && indent + line.count + 1 + word.count > width {
                    lines.append(pad + line)
                    line = String(word)
                } else {
                    line += (line.isEmpty ? "" : " ") + word
                }
            }
            lines.append(pad + line)
        }
        return lines
    }
}

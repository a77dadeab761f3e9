/// The declarative command line (issue 44, "A declarative command line"): every command declares its options once, as
/// ``OptionDeclaration``s in a ``CommandDeclaration`` (CommandTable.swift), and ``OptionParser`` is the only code that
/// walks the arguments. Help and the usage in errors (Help.swift) and shell completion (Completion.swift) are
/// rendered from the same declarations: nothing about an option is written a second time.
///
/// Adding to the table (each in the command's own declaration, its `options` list):
/// - a flag: `.flag("--name", "summary") { state in state.name = true }`;
/// - a value option: `.value("--name", "PLACEHOLDER", .file, "summary") { (state: inout S, text: String)
///   throws(UsageError) in ... }` (the kind `.text` may be left out; `.choices([...])` completes its words);
/// - repeatable: `repeatable: true` (each value is applied in order; otherwise a second one is "given twice");
/// - an environment variable: `environment: "SIMCTL_X"` (the command line wins; ``OptionParser`` adds it);
/// - its text in `simctl help COMMAND`: `.help("...")` (wrapped by the help; the summary when not given), with
///   `values:` for a text per value (`--format timeline`, ...); a shared set's options carry its ``HelpSection``;
/// - options that exclude each other: an ``ExclusiveGroup`` in the declaration's `groups`;
/// - a shared set (signing, delivery, identity): its `declarations` lifted with `.lifted(\S.field)` into the state;
/// - a command or subcommand: a ``CommandDeclaration`` and a ``CommandEntry`` in ``CommandTable/entries`` with the
///   ``SimctlInvocation`` case it parses into (subcommands: listed in the entry's `subcommands`, as `certs` does).
///
/// The forms follow swift-argument-parser's conventions: `--name value` and `--name=value`, `--` ends the options,
/// `-h`/`--help` anywhere after the command's name asks for its help, and a near miss gets "did you mean".

/// What an option's value is: for completion (files, folders, a fixed list) and for the docs' table.
package enum OptionValue: Equatable, Sendable {
    /// A flag: no value.
    case none
    /// Free text (a name, a number, a duration, ...).
    case text
    /// A file path.
    case file
    /// A folder path.
    case directory
    /// An http:// or https:// address.
    case url
    /// One of these words.
    case choices([String])
}

/// One option of one command, declared once.
package struct OptionDeclaration<State>: Sendable {
    package var name: String
    package var value: OptionValue
    /// The value's placeholder in usage and help (`FILE`, `N`); empty for a flag.
    package var placeholder: String
    /// Whether the option may be given more than once (each value is applied in order).
    package var repeatable: Bool
    /// An environment variable standing for the option when the command line does not give it.
    package var environment: String?
    /// One line for completion descriptions and the docs' table.
    package var summary: String
    /// Checks and converts the value (empty for a flag) into the command's state; throws a located usage error.
    package var apply: @Sendable (inout State, String) throws(UsageError) -> Void
    /// The option's text in `simctl help COMMAND`, one paragraph the help wraps; empty: ``summary``.
    package var helpText = ""
    /// A text per value (`--format timeline`, `--format jsonl`, ...: the value as the label), each its own row in
    /// the help.
    package var valueHelp: [HelpRow] = []
    /// The help section the option is listed in (a shared set's, such as signing's); nil: the command's OPTIONS.
    package var section: HelpSection?

    package var isFlag: Bool { value == .none }

    /// The option with its help text (and a text per value).
    package func help(_ text: String, values: [HelpRow] = []) -> Self {
        var option = self
        option.helpText = text
        option.valueHelp = values
        return option
    }

    /// The option listed in `section` of the help (nil: OPTIONS).
    package func listed(in section: HelpSection?) -> Self {
        var option = self
        option.section = section
        return option
    }

    /// A value option.
    package static func value(
        _ name: String, _ placeholder: String, _ value: OptionValue, repeatable: Bool = false,
        environment: String? = nil, _ summary: String,
        apply: @escaping @Sendable (inout State, String) throws(UsageError) -> Void
    ) -> Self {
        Self(
            name: name, value: value, placeholder: placeholder, repeatable: repeatable, environment: environment,
            summary: summary, apply: apply)
    }

    /// A value option of free text.
    package static func value(
        _ name: String, _ placeholder: String, repeatable: Bool = false, environment: String? = nil,
        _ summary: String, apply: @escaping @Sendable (inout State, String) throws(UsageError) -> Void
    ) -> Self {
        .value(
            name, placeholder, .text, repeatable: repeatable, environment: environment, summary, apply: apply)
    }

    /// A flag (no value).
    package static func flag(
        _ name: String, _ summary: String, apply: @escaping @Sendable (inout State) throws(UsageError) -> Void
    ) -> Self {
        Self(
            name: name, value: .none, placeholder: "", repeatable: false, environment: nil, summary: summary,
            apply: { (state: inout State, _: String) throws(UsageError) in try apply(&state) })
    }

    /// The same option on a command with a bigger state (shared option sets: signing, delivery, identity).
    package func lifted<Outer>(_ path: WritableKeyPath<Outer, State> & Sendable) -> OptionDeclaration<Outer> {
        let apply = self.apply
        return OptionDeclaration<Outer>(
            name: name, value: value, placeholder: placeholder, repeatable: repeatable, environment: environment,
            summary: summary,
            apply: { (outer: inout Outer, text: String) throws(UsageError) in try apply(&outer[keyPath: path], text) },
            helpText: helpText, valueHelp: valueHelp, section: section)
    }

    /// The option without its type, for completion and docs.
    package var info: OptionInfo {
        OptionInfo(
            name: name, value: value, placeholder: placeholder, repeatable: repeatable, environment: environment,
            summary: summary, helpText: helpText.isEmpty ? summary : helpText, valueHelp: valueHelp, section: section)
    }
}

/// A titled group of options in the help (a shared set: signing, delivery, identity, the picture), with a note
/// after its rows.
package struct HelpSection: Equatable, Sendable {
    package var title: String
    package var note: String

    package init(_ title: String, note: String = "") {
        self.title = title
        self.note = note
    }
}

/// A block of a command's prose in its help, before or after the options.
package enum HelpBlock: Equatable, Sendable {
    /// Text wrapped at the help's width; a newline in it starts a new line.
    case paragraph(String)
    /// `TITLE:`, then the text wrapped and indented by two.
    case titled(String, String)
    /// `TITLE:`, then rows of a label and its text (exit codes, examples' notes).
    case rows(String, [HelpRow])
}

/// A label and its text, a row of ``HelpBlock/rows(_:_:)``.
package struct HelpRow: Equatable, Sendable {
    package var label: String
    package var text: String

    package init(_ label: String, _ text: String) {
        self.label = label
        self.text = text
    }
}

/// An option as completion and the docs see it.
package struct OptionInfo: Equatable, Sendable {
    /// The summary of an option another command has and this one refuses with a reason (check refuses some of
    /// run's delivery options): parsed, so the reason is the error, but neither completed nor shown as its own.
    package static let refusalSummary = "another command's option, refused here with its reason"
    package var isRefusal: Bool { summary == Self.refusalSummary }
    package var isFlag: Bool { value == .none }

    package var name: String
    package var value: OptionValue
    package var placeholder: String
    package var repeatable: Bool
    package var environment: String?
    package var summary: String
    /// The help's text (``OptionDeclaration/helpText``, or the summary).
    package var helpText: String = ""
    package var valueHelp: [HelpRow] = []
    package var section: HelpSection?
}

/// Options that cannot be given together (the signing chain's `--ca-seed` and `--signing-chain`); `message` is the
/// error for the second one met.
package struct ExclusiveGroup: Sendable {
    package var names: [String]
    package var message: String
}

/// One command (or subcommand) of simctl, declared once.
package struct CommandDeclaration<State>: Sendable {
    /// The words that name it: `run`, `certs tls`.
    package var name: String
    /// The help topic whose usage line follows an error (`simctl help TOPIC`).
    package var topic: String
    /// One line for the overview's table, completion and the docs.
    package var summary: String
    /// The positional argument's placeholder (`FILE`, `PART...`), empty when it takes none, and what it completes to.
    package var positional: String
    package var positionalValue: OptionValue
    package var options: [OptionDeclaration<State>]
    package var groups: [ExclusiveGroup] = []
    /// Takes one positional argument (throws when there is one too many).
    package var argument: @Sendable (inout State, String) throws(UsageError) -> Void
    /// The message for an option the command does not have (given the name and its "did you mean" hint).
    package var unknownOption: @Sendable (String, String) -> String = { name, hint in
        "unknown option '\(name)'\(hint)"
    }
    /// The help's words about the command (``HelpPage``).
    package var page = HelpPage()

    package var info: CommandInfo {
        CommandInfo(
            name: name, summary: summary, positional: positional, positionalValue: positionalValue,
            options: options.map(\.info).filter { !$0.isRefusal }, exclusive: groups.map(\.names), page: page)
    }

    /// The declaration with its help page.
    package func described(_ page: HelpPage) -> Self {
        var command = self
        command.page = page
        return command
    }
}

/// What `simctl help COMMAND` says besides the options, declared with the command: the options and the USAGE line
/// are rendered from the declarations (Help.swift).
package struct HelpPage: Equatable, Sendable {
    /// Options the command needs, shown unbracketed after the positional argument in USAGE (its parse checks them).
    package var required: [String] = []
    /// More USAGE lines after the generated one, without `simctl ` (`trigger --list`).
    package var forms: [String] = []
    /// The prose between USAGE and the options.
    package var about: [HelpBlock] = []
    /// The prose after the options.
    package var notes: [HelpBlock] = []
    /// Command lines (without `simctl `) shown under EXAMPLES, each one parsed by the tests.
    package var examples: [String] = []
    /// Rows of the ENVIRONMENT section before the options' own variables (`SIMCTL_SCENARIO`), for variables that
    /// stand for no option.
    package var environment: [HelpRow] = []

    package init(
        required: [String] = [], forms: [String] = [], about: [HelpBlock] = [], notes: [HelpBlock] = [],
        examples: [String] = [], environment: [HelpRow] = []
    ) {
        self.required = required
        self.forms = forms
        self.about = about
        self.notes = notes
        self.examples = examples
        self.environment = environment
    }
}

/// A command as completion and the docs see it.
package struct CommandInfo: Equatable, Sendable {
    package var name: String
    package var summary: String
    package var positional: String
    package var positionalValue: OptionValue
    package var options: [OptionInfo]
    /// The names of each group of options that exclude each other (`[--ca-seed TEXT | --signing-chain DIR]`).
    package var exclusive: [[String]] = []
    package var page = HelpPage()
}

/// The one walker over the arguments.
package enum OptionParser {
    /// One argument as the parser sees it.
    enum Token: Equatable {
        case option(name: String, value: String?)
        case positional(String)
        case endOfOptions
    }

    /// Whether `argument` is an option (rather than a positional argument): it starts with `-` and is not `-` alone
    /// (standard input).
    static func isOption(_ argument: String) -> Bool { argument.hasPrefix("-") && argument != "-" }

    /// Parses `arguments` (after the command's words) into `state`, applying each option and positional argument in
    /// the order given. Throws the first mistake as a usage error naming the command's topic.
    package static func parse<State>(
        _ arguments: [String], _ command: CommandDeclaration<State>, into state: inout State
    ) throws(UsageError) {
        var byName: [String: OptionDeclaration<State>] = [:]
        for option in command.options { byName[option.name] = option }
        let names = command.options.map(\.name)
        var seen: Set<String> = []
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !isOption(argument) {
                try command.argument(&state, argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard let option = byName[name] else {
                throw UsageError(
                    message: command.unknownOption(name, ArgumentParser.hint(name, names)), topic: command.topic)
            }
            if option.isFlag {
                if value != nil {
                    throw UsageError(message: "option '\(name)' takes no value", topic: command.topic)
                }
            } else if value == nil {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(message: "option '\(name)' needs a value", topic: command.topic)
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable && seen.contains(name) {
                throw UsageError(message: "option '\(name)' is given twice", topic: command.topic)
            }
            seen.insert(name)
            try option.apply(&state, value ?? "")
            for group in command.groups where group.names.contains(name) {
                if group.names.filter(seen.contains).count > 1 {
                    throw UsageError(message: group.message, topic: command.topic)
                }
            }
        }
    }

    /// Takes the options `options` declares out of `arguments` (up to a `--` that ends the options), applying them to
    /// `state`, and returns the arguments left, in their order, for another declaration to parse.
    static func extract<State>(
        _ arguments: [String], _ options: [OptionDeclaration<State>], groups: [ExclusiveGroup], topic: String,
        into state: inout State
    ) throws(UsageError) -> [String] {
        var rest: [String] = []
        var taken: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                rest.append(contentsOf: arguments[(index - 1)...])
                break
            }
            let name = argument.hasPrefix("--") ? String(argument.prefix { $0 != "=" }) : argument
            guard options.contains(where: { $0.name == name }) else {
                rest.append(argument)
                continue
            }
            taken.append(argument)
            if !argument.contains("="), let option = options.first(where: { $0.name == name }), !option.isFlag {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(message: "option '\(name)' needs a value", topic: topic)
                }
                taken.append(arguments[index])
                index += 1
            }
        }
        let command = CommandDeclaration<State>(
            name: topic, topic: topic, summary: "", positional: "", positionalValue: .none, options: options,
            groups: groups, argument: { _, _ in })
        try parse(taken, command, into: &state)
        return rest
    }

    /// The names of the options `arguments` gives and whether it names a positional argument (for the environment
    /// variables, which stand for an option only when the command line does not give it). Never throws: a mistake is
    /// left for ``parse(_:_:into:)`` to report.
    static func given<State>(_ arguments: [String], _ command: CommandDeclaration<State>) -> (
        names: Set<String>, hasPositional: Bool
    ) {
        var names: Set<String> = []
        var hasPositional = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return (names, hasPositional || index < arguments.count) }
            guard isOption(argument) else {
                hasPositional = true
                continue
            }
            if let equals = argument.firstIndex(of: "=") {
                names.insert(String(argument[..<equals]))
            } else {
                names.insert(argument)
                if command.options.first(where: { $0.name == argument })?.isFlag != true { index += 1 }
            }
        }
        return (names, hasPositional)
    }

    /// The command line with the options that `environment` sets through the options' declared variables and the
    /// command line does not give, in front (so the command line's own come after them); and, when no positional
    /// argument is given, `positional`'s variable's value after the options.
    static func withEnvironment<State>(
        _ arguments: [String], _ command: CommandDeclaration<State>, positional: String?,
        environment: [String: String]
    ) -> [String] {
        let given = given(arguments, command)
        var added: [String] = []
        for option in command.options where !given.names.contains(option.name) {
            if let variable = option.environment, let value = environment[variable], !value.isEmpty {
                added += [option.name, value]
            }
        }
        var result = added + arguments
        if !given.hasPositional, let positional, let file = environment[positional], !file.isEmpty {
            // After the options, behind `--` unless the command line already ended its options.
            result += arguments.contains("--") ? [file] : ["--", file]
        }
        return result
    }
}

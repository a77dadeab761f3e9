/// Usage and help texts, written once here.
package enum HelpText {
    package static let overview = """
        simctl \(simctlVersion): simulate the App Store subscription lifecycle and its server notifications

        USAGE: simctl <command> [options]

        A FIRST NOTIFICATION: simctl trigger REFUND --deliver http://127.0.0.1:8080/asn   (docs/trigger.md)
        A WHOLE BACKEND:      simctl check SCENARIO --deliver URL --entitlements TEMPLATE   (docs/check.md)

        COMMANDS:
          trigger KIND    Send or print one signed notification of a kind (REFUND, DID_FAIL_TO_RENEW/GRACE_PERIOD,
                          ...): the smallest lifecycle that ends in it, no file needed (docs/trigger.md)
          replay SOURCE   POST a fixture folder (run --out) or a jsonl stream again, in its order
          run FILE        Run a scenario; print its timeline or notification stream
          merge PART...   Merge the parts of 'run --shard I/N' into the one-job output
          validate FILE   Check a scenario and run it without printing; report what run would refuse
          catalog FILE    Print the products of a scenario or an Xcode .storekit file
          population      Run the cohort model of a subscriber population (churn, billing failures, grace)
          serve FILE      Serve a scenario's store: a local App Store Server API and a control API
          check SCENARIO  Test a backend against the store with generated lifecycles (docs/check.md)
          certs           Export the signing chain; write negative fixtures for verifiers; TLS test certificates
          completion SHELL  Print a shell completion script for bash, zsh or fish (docs/cli.md)
          help [COMMAND]  Show help for simctl or one command

        OPTIONS:
          -h, --help      Show help
          --version       Print the version

        EXIT CODES:
          0   success, and every expectation in the scenario holds
          1   an expectation failed (each failure is printed with what was expected and what happened)
          2   --deliver: a notification is undelivered after its last attempt
          3   trigger --tamper --deliver: the endpoint accepted a notification that fails verification
          64  bad usage
          65  invalid scenario or .storekit file
          66  the input file cannot be read
          73  the --out folder or the --delivery-log file cannot be written
          74  writing standard output or the delivery log failed (full disk, I/O error; a closed pipe
              ends simctl quietly by SIGPIPE instead)

        See 'simctl help run' for the scenario run options, and docs/scenario-format.md for the file format.
        """

    package static let run = """
        USAGE: simctl run FILE [--format timeline|jsonl|decoded|svg] [--out DIR [--force]] [--until TIME] [--seed N]
                              [--start now|INSTANT] \(SigningOptions.usage)
                              [--deliver URL ...] [--jobs N] [--shard I/N]
                              \(IdentityOptions.usage)

        Runs the scenario FILE on the virtual clock and checks its expectations.

        OPTIONS:
          --format timeline   (default) a readable table: virtual time, offset from start, customer,
                              notification type and subtype, status, key fields, and each change of access
          --format jsonl      exactly one App Store POST body {"signedPayload":"..."} per line, in
                              virtual-time order; nothing else on standard output
          --format decoded    one JSON object per line: recipient, instant and the payload with its
                              nested JWS (transaction, renewal info) decoded
          --format svg        one self-contained SVG picture of the run: a lane per customer, phases,
                              notifications, access and the family delay over a dated UTC axis
          --out DIR           also write a fixture folder: one numbered file per notification (0001.json, ...)
                              holding its POST body, plus manifest.json (recipient, instant, type, subtype)
                              and timeline.svg (the svg format's picture).
                              Written atomically: on failure no folder is left. DIR must not exist yet (not
                              even empty) unless --force is given; missing parent folders are created.
                              Not written when an expectation fails. Ctrl-C waits for the write to end.
          --force             with --out: replace an existing DIR, only once the new folder is complete
                              (the old folder stays in place until then)
          --until TIME        run until TIME instead of the scenario's `until`: 0, 90s, 30m, 1h, 16d, 2w,
                              an ISO 8601 duration such as P1M10D (offsets from `start`), or an ISO instant
          --seed N            use seed N instead of the scenario's `seed` (ids and UUIDs derive from it)
          --start now|INSTANT use this start instead of the scenario's `start`: `now` (the clock, rounded
                              down to the whole second) or an ISO 8601 UTC instant such as
                              2026-12-01T00:00:00Z. Offsets in the file count from it; absolute instants
                              in the file stay as written.
        \(SigningOptions.help)
        \(IdentityOptions.help)
          --jobs N            simulate the customers in N parts on N threads at once (default: this
                              machine's cores); families stay together, and the output is merged into the
                              same bytes for every N; a long timeline is read on up to N threads. --jobs 1
                              runs on one thread. One job whatever N: svg, --deliver, and a scenario with
                              an action for no one customer (a price change, removeFromSale, TEST, a mass
                              renewal extension) (docs/streaming.md)
          --shard I/N         write only part I of N (from 1) of a jsonl, decoded or timeline run, in the
                              part format that 'simctl merge' reads (run the N parts on N machines, then
                              merge them into the same bytes as one run). A scenario that runs as one job has
                              everything in part 1; its other parts are empty. Expectations are not judged.
                              Not with svg, --out or --deliver. See 'simctl help merge' and docs/streaming.md
        \(PictureOptions.help)

        The same file, seed and start always give byte-identical output.
        Expectation failures go to standard error; the exit code is then 1.
        An action the rules refuse stops the run: the timeline up to it is printed (formats jsonl and decoded
        print nothing), the error goes to standard error as FILE:LINE:COLUMN: error: MESSAGE, exit code 65.
        \(DeliveryOptions.help)
        """

    package static let trigger = """
        USAGE: simctl trigger KIND [--deliver URL ...] [--all] [--format jsonl|decoded] [--tamper]
                                   [--environment NAME] [--ca-seed TEXT | --signing-chain DIR] [--bundle-id ID]
                                   [--app-apple-id N] [--product ID] [--customer NAME] [--storefront CODE]
                                   [--seed N] [--scenario FILE [--map-product OLD=NEW ...]]
               simctl trigger --list
               simctl trigger KIND --print-scenario [options]

        Runs the smallest lifecycle that ends in a notification of KIND (a notificationType with an optional
        subtype: REFUND, DID_FAIL_TO_RENEW/GRACE_PERIOD, SUBSCRIBED/RESUBSCRIBE, ...; any case) on a built-in
        app (com.example.app, appAppleId 1234567890, Sandbox) and catalogue, and prints that notification as
        its line of 'simctl run --format jsonl', or POSTs it to URL as 'simctl run --deliver' does.

        OPTIONS:
          --list              every kind, with the lifecycle behind it
          --print-scenario    print the lifecycle as a scenario file: 'simctl run' of it sends the same notification
          --all               the whole lifecycle, not only its last notification
          --format decoded    the decoded line (recipient, instant, payload with its nested JWS decoded)
          --tamper            the notification with its payload changed after signing (the altered-payload
                              fixture of 'simctl certs negative-fixtures'): a verifying endpoint must refuse it.
                              With --deliver, exit code 0 when it was refused, 3 when it was accepted
          --environment NAME  Sandbox (default: signed by the test chain of 'simctl certs export'), Production,
                              LocalTesting or Xcode (unsigned placeholders)
          --ca-seed TEXT, --signing-chain DIR   sign as 'simctl run' does (see 'simctl help run')
          --bundle-id ID      the app's bundleId (default com.example.app)
          --app-apple-id N    the app's appAppleId (default 1234567890; Sandbox payloads omit it)
          --product ID        the product's id (default com.example.app.monthly; com.example.app.coins for
                              ONE_TIME_CHARGE); with --scenario, the product of its catalogue to use
          --customer NAME     the customer the notification is about (default alice)
          --storefront CODE   the customer's storefront (ISO 3166-1 alpha-3, such as FRA)
          --seed N            the seed of ids and UUIDs (default 0)
          --scenario FILE     take the app and the catalogue from a scenario file
          --map-product OLD=NEW  with --scenario: rename its product OLD to NEW (repeatable, or a
                              comma-separated list)
        \(DeliveryOptions.help)
        """

    package static let replay = """
        USAGE: simctl replay DIR|FILE.jsonl --deliver URL [--no-retries] [delivery options]

        POSTs every notification of a fixture folder ('simctl run --out DIR': in manifest.json's order) or of a
        jsonl stream ('simctl run --format jsonl': one body a line) to URL, byte for byte, in its order, with the
        retries, log and chaos of 'simctl run --deliver'. Each notification's first attempt is at its signedDate
        on the virtual clock (never before the one before it).

        OPTIONS:
          --no-retries        one attempt each (the same as --deliver-mode sandbox)
        \(DeliveryOptions.help)
        """

    package static let merge = """
        USAGE: simctl merge PART...

        Merges the N parts written by 'simctl run FILE --shard I/N --format jsonl|decoded|timeline' (each part
        once, in any order) into exactly the output of the one-job run, on standard output. Every part is
        checked before anything is written: the header (same scenario file, seed, start, until, environment,
        signing, format and N), that parts 1 to N are each there once, and that each part is complete (its
        trailer counts its records). Memory stays bounded: parts are read twice, in chunks, never held whole
        (a timeline's rows wait in a temporary file until the table's column widths are known).
        When the run stopped at an action the rules refuse, the lines up to it are written, the error goes to
        standard error and the exit code is 65, as 'simctl run' does. Expectations are not judged: a merged
        timeline ends with 'expectations: N not checked' where the one-job run judges N > 0 of them.
        Exit codes: 64 bad usage, 65 a part is not valid (the message names the file, what was expected and
        what was found), 66 a part cannot be read. See docs/streaming.md, "Spreading a run over machines".
        """

    package static let validate = """
        USAGE: simctl validate FILE

        Checks the scenario FILE (syntax, schema, names, times, field paths) and runs it without printing
        anything, so every action the lifecycle and family rules refuse (a second cancel, a refund of nothing,
        a purchase during billing retry, ...) is reported at its timeline entry. Expectations are not judged:
        'simctl run' judges them.
        Errors are printed as FILE:LINE:COLUMN: error: MESSAGE; the exit code is then 65.
        """

    package static let catalog = """
        USAGE: simctl catalog FILE

        Prints the product catalogue the simulator will use: one row per product with id, type, group and level,
        period, price, currency, family shareable and introductory offer. FILE is a scenario (.yaml) or an
        Xcode StoreKit configuration file (.storekit); for a .storekit file the settings it holds are listed too.
        """

    package static let certs = """
        USAGE: simctl certs export DIR \(SigningOptions.usage)
               simctl certs negative-fixtures FILE DIR [--environment Sandbox|Production] [--ca-seed TEXT]
               simctl certs tls DIR [--name HOST]... [--seed TEXT] [--not-before INSTANT] [--days N]
               simctl certs export DIR --ocsp-url URL [--ca-seed TEXT]
               simctl certs ocsp --ocsp-url URL [--ca-seed TEXT] [--revoke leaf|intermediate]...

        export              writes the chain Sandbox and Production payloads are signed with: root,
                            intermediate and leaf as .pem and .der, and the leaf's key as leaf-key.pem.
                            Give root.der (or root.pem) to your verifier as its trusted root. It takes the
                            signing options of run, serve and check, so one set of options names the
                            chain everywhere (--environment does not change the chain).
        negative-fixtures   runs the scenario FILE and writes its first notification made to fail
                            verification in each way a verifier must catch (altered payload, another key,
                            wrong OIDs, expired leaf, untrusted root, one-certificate chain, wrong bundleId,
                            wrong environment), a valid control, root.der and manifest.json with the
                            VerificationStatus Apple's SignedDataVerifier returns for each. It takes
                            --environment (the environment the fixtures claim) and --ca-seed, not
                            --signing-chain (the fixtures need the chain's CA keys).
        \(Simctl.certsTLSHelp)
        \(Simctl.certsOCSPHelp)

        OPTIONS:
        \(SigningOptions.help)

        DIR must not exist yet; it is written atomically. The keys are test data: never trust this root
        outside tests.
        """

    package static func text(for topic: String?) -> String {
        switch topic {
        case "run": return run
        case "trigger": return trigger
        case "replay": return replay
        case "merge": return merge
        case "validate": return validate
        case "catalog": return catalog
        case "certs": return certs
        case "serve": return ServeCommand.help
        case "check": return CheckCommand.help
        case "population": return PopulationCommand.help
        case "completion": return Completion.help
        default: return overview
        }
    }

    package static func usageLine(for topic: String?) -> String {
        switch topic {
        case "run":
            return
                "usage: simctl run FILE [--format timeline|jsonl|decoded|svg] [--out DIR [--force]] [--until TIME] [--seed N] [--start now|INSTANT] [--environment NAME] [--ca-seed TEXT | --signing-chain DIR] [--deliver URL ...] [--jobs N] [--shard I/N]"
        case "serve":
            return
                "usage: simctl serve FILE [--port N] [--host ADDR] [--deliver URL ...] [--seed N] [--start now|INSTANT] [--environment NAME] [--ca-seed TEXT | --signing-chain DIR] [--api-key-pem FILE] [--log FILE]"
        case "check": return CheckCommand.usageLine
        case "population": return PopulationCommand.usageLine
        case "completion": return "usage: simctl completion bash|zsh|fish"
        case "merge": return "usage: simctl merge PART..."
        case "trigger":
            return
                "usage: simctl trigger KIND [--deliver URL ...] [--all] [--format jsonl|decoded] [--tamper] [--environment NAME] [--ca-seed TEXT | --signing-chain DIR] [--bundle-id ID] [--app-apple-id N] [--product ID] [--customer NAME] [--storefront CODE] [--seed N] [--scenario FILE] | simctl trigger --list"
        case "replay": return "usage: simctl replay DIR|FILE.jsonl --deliver URL [--no-retries] [delivery options]"
        case "validate": return "usage: simctl validate FILE"
        case "catalog": return "usage: simctl catalog FILE"
        case "certs":
            return
                "usage: simctl certs export DIR [--environment NAME] [--ca-seed TEXT | --signing-chain DIR] | simctl certs negative-fixtures FILE DIR [--environment NAME] [--ca-seed TEXT] | simctl certs tls DIR [--name HOST]... [--seed TEXT] [--not-before INSTANT] [--days N] | simctl certs ocsp --ocsp-url URL [--ca-seed TEXT] [--revoke leaf|intermediate]..."
        default:
            return
                "usage: simctl <command> [options]   (commands: \(CommandTable.names.joined(separator: ", ")))"
        }
    }
}

import SubscriptionSimulator

/// The dashboard and the control API in a browser (issue 48; docs/server.md, "Browser safety"). A web page the
/// developer visits must not drive or read the local server: not by a cross-site request (a form or `fetch` POST to
/// `http://127.0.0.1:PORT/simctl/v1/...`), nor by DNS rebinding (a name of the attacker's that resolves to 127.0.0.1,
/// so that the browser takes the server for the attacker's own origin). Two rules, on the dashboard (`/`) and under
/// `/simctl/` only: Apple's `/inApps/` routes are reached by backends, under whatever name a TLS front or a container
/// network gives the server, and are never checked.
///
/// - rule browser-host-allowed: `Host` names the address the server listens on (`--host`), a loopback name
///   (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`), an IP address (a browser sends one only when its URL has
///   it, and DNS rebinding needs a name), or a name given with `--allow-host`. A request without `Host` (HTTP/1.0,
///   hand-made clients) passes: browsers always send it.
/// - rule browser-same-origin-changes: a request that changes the store (any method but GET, HEAD and OPTIONS) with
///   an `Origin` header must come from the server's own origin (`http://` or `https://` and the request's `Host`);
///   `Origin: null` (a sandboxed frame, a file) is refused. Without `Origin` (curl, test suites) it passes: browsers
///   send `Origin` with every cross-origin request and with every POST.
struct BrowserSafety: Sendable {
    /// The listen address, lowercased, without brackets.
    let listenHost: String
    /// `--allow-host` names, lowercased, without a trailing dot.
    let allowed: Set<String>

    init(listenHost: String, allowedHosts: [String]) {
        self.listenHost = Self.normalized(listenHost)
        allowed = Set(allowedHosts.map(Self.normalized))
    }

    /// Whether the rules apply to the request's path: `/` and everything under `/simctl/`.
    static func guards(_ request: ServerRequest) -> Bool {
        let segments = request.segments
        if segments.count == 2 && segments[1].isEmpty { return true }
        return segments.count >= 2 && segments[1] == "simctl"
    }

    /// The 403 for a request the rules refuse; nil when it passes.
    func refusal(_ request: ServerRequest) -> ServerResponse? {
        let host = request.header("Host")
        if let host, !isAllowed(host: Self.hostName(of: host)) {
            let shown = Self.shown(host)
            return .problem(
                403,
                "Host '\(shown)' refused on the dashboard and the control API (rule browser-host-allowed): a web page "
                    + "reaching this server under a name of its own (DNS rebinding) must not drive or read it. Allowed: "
                    + "the listen address (\(listenHost)), localhost and other loopback names, IP addresses, and names "
                    + "given with --allow-host (or SIMCTL_ALLOW_HOST); start simctl serve with --allow-host "
                    + "\(Self.shown(Self.hostName(of: host))) if you reach it under that name (docs/server.md, "
                    + "\"Browser safety\"). Apple's /inApps/ routes take any Host")
        }
        guard !["GET", "HEAD", "OPTIONS"].contains(request.method), let origin = request.header("Origin") else {
            return nil
        }
        if Self.isSameOrigin(origin, host: host, safety: self) { return nil }
        return .problem(
            403,
            "\(request.method) \(Self.shown(request.path)) refused: Origin '\(Self.shown(origin))' is not this "
                + "server's own (rule browser-same-origin-changes): a page of another site must not change the store. "
                + "Requests without Origin (curl, test suites) and the dashboard's own requests are accepted "
                + "(docs/server.md, \"Browser safety\")")
    }

    /// Whether `name` (lowercased, without port or brackets) may be the `Host` of a guarded request.
    func isAllowed(host name: String) -> Bool {
        if name.isEmpty { return false }
        if name == listenHost || allowed.contains(name) { return true }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        return Self.isIPAddress(name)
    }

    /// `Origin` is `http://` or `https://` followed by exactly the request's `Host` (without `Host`: an allowed host).
    static func isSameOrigin(_ origin: String, host: String?, safety: BrowserSafety) -> Bool {
        let lowered = origin.lowercased()
        let authority: Substring
        if lowered.hasPrefix("http://") {
            authority = lowered.dropFirst("http://".count)
        } else if lowered.hasPrefix("https://") {
            authority = lowered.dropFirst("https://".count)
        } else {
            return false
        }
        if authority.isEmpty || authority.contains("/") { return false }
        guard let host else { return safety.isAllowed(host: hostName(of: String(authority))) }
        return authority == host.lowercased()
    }

    /// The host of a `Host` value (or an origin's authority): without the port, brackets and a trailing dot,
    /// lowercased.
    static func hostName(of value: String) -> String {
        var text = Substring(value.lowercased())
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return "" }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if let colon = text.lastIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return "" }
            text = text[..<colon]
        }
        return normalized(String(text))
    }

    static func normalized(_ name: String) -> String {
        var text = name.lowercased()
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A dotted-quad IPv4 address or an IPv6 address (hex digits and colons, with at least two colons; a `Host`
    /// writes it in brackets, which ``hostName(of:)`` removed).
    static func isIPAddress(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && UInt8($0) != nil })
        {
            return true
        }
        let colons = name.filter { $0 == ":" }.count
        return colons >= 2 && name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    static func shown(_ text: String) -> String {
        SourceText.escapingControlCharacters(text.count > 200 ? String(text.prefix(200)) + "…" : text)
    }
}

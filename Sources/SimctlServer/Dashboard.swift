import SubscriptionSimulator

/// The dashboard (issue 48; docs/server.md, "The dashboard"): one page, its stylesheet and its script, embedded
/// here and served by simctl itself (no external URL, font, CDN or framework: it works offline). The page knows no rule
/// of the store: it reads and calls the control API (`/simctl/v1/state`, `/notifications`, `/deliveries`,
/// `/timeline.svg`, `/actions`, `/advance`, `/reset`, `/notifications/{notificationUUID}/resend`), builds its forms
/// from `GET /simctl/v1/actions`, and shows the server's answers, a refused action's rule included.
enum Dashboard {
    /// `GET /` redirects to the page; `GET /simctl/v1/ui` is the page; the two files it loads.
    static func page(_ route: Route, _ request: ServerRequest) -> ServerResponse {
        if let unknown = request.query.first {
            return .problem(
                400, "unknown query parameter '\(SimulatorServer.shownQuery(unknown.name))'; the dashboard takes none")
        }
        switch route {
        case .dashboardRoot:
            return ServerResponse(
                status: 303, headers: [ServerHeader(name: "Location", value: "/simctl/v1/ui")] + headers("text/plain"),
                body: Array("See /simctl/v1/ui: simctl's dashboard.\n".utf8))
        case .dashboardScript:
            return ServerResponse(status: 200, headers: headers("text/javascript"), body: Array(script.utf8))
        case .dashboardStyle: return ServerResponse(status: 200, headers: headers("text/css"), body: Array(style.utf8))
        default: return ServerResponse(status: 200, headers: headers("text/html"), body: Array(html.utf8))
        }
    }

    /// Every answer of the dashboard: its type, never cached, and the browser's own guards: only simctl's own files
    /// (`Content-Security-Policy`: scripts, styles and connections to this origin; images from it or `data:`, the
    /// picture the script loads), never in a frame of another site (clickjacking), no type sniffing, no referrer.
    static func headers(_ type: String) -> [ServerHeader] {
        [
            ServerHeader(name: "Content-Type", value: type + "; charset=utf-8"),
            ServerHeader(name: "Cache-Control", value: "no-store"),
            ServerHeader(
                name: "Content-Security-Policy",
                value: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                    + "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
            ServerHeader(name: "X-Frame-Options", value: "DENY"),
            ServerHeader(name: "X-Content-Type-Options", value: "nosniff"),
            ServerHeader(name: "Referrer-Policy", value: "no-referrer"),
        ]
    }

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>simctl</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/simctl/v1/ui/dashboard.css">
        <script src="/simctl/v1/ui/dashboard.js" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to the store</a>
        <header>
          <div class="title">
            <h1 id="scenario-name">simctl</h1>
            <p id="app" class="muted"></p>
          </div>
          <p class="clock">Clock <time id="clock">…</time></p>
          <div class="controls" role="group" aria-label="Move the clock">
            <button type="button" id="advance-1h" data-advance="1h">Advance 1 hour</button>
            <button type="button" id="advance-1d" data-advance="1d">Advance 1 day</button>
            <button type="button" id="advance-1m" data-advance="P1M">Advance 1 month</button>
            <form id="advance-to-form" class="inline">
              <label for="advance-to">Advance to</label>
              <input id="advance-to" name="to" required placeholder="2026-04-01T00:00:00Z" size="22">
              <button type="submit">Go</button>
            </form>
            <button type="button" id="reset" class="secondary">Reset (new epoch)</button>
          </div>
          <p id="status" role="status" aria-live="polite"></p>
          <p id="counts" class="muted"></p>
        </header>
        <main id="main">
          <section id="customers-section" aria-labelledby="customers-heading">
            <h2 id="customers-heading">Customers and families</h2>
            <div id="customers"></div>
            <datalist id="customer-names"></datalist>
          </section>
          <section id="actions-section" aria-labelledby="actions-heading">
            <h2 id="actions-heading">Perform an action</h2>
            <form id="action-form">
              <div class="field">
                <label for="action-name">Action</label>
                <select id="action-name"></select>
              </div>
              <div id="action-fields"></div>
              <button type="submit" id="action-submit">Perform</button>
            </form>
            <p id="action-result" role="alert"></p>
          </section>
          <section id="timeline-section" aria-labelledby="timeline-heading">
            <h2 id="timeline-heading">Timeline</h2>
            <img id="timeline" alt="The timeline of the run so far: a lane per customer with its phases and notifications">
          </section>
          <section id="notifications-section" aria-labelledby="notifications-heading">
            <h2 id="notifications-heading">Notifications <span id="notification-total" class="muted"></span></h2>
            <table id="notifications">
              <caption class="visually-hidden">Notifications, newest first</caption>
              <thead><tr><th scope="col">#</th><th scope="col">Instant</th><th scope="col">Type</th><th scope="col">Subtype</th><th scope="col">Recipient</th><th scope="col">Delivery</th><th scope="col">Payload</th></tr></thead>
              <tbody id="notification-rows"></tbody>
            </table>
            <button type="button" id="older" hidden>Show older notifications</button>
          </section>
          <section id="deliveries-section" aria-labelledby="deliveries-heading">
            <h2 id="deliveries-heading">Deliveries</h2>
            <p id="destination" class="muted"></p>
            <table id="delivery-table" hidden>
              <caption class="visually-hidden">Delivery attempts, newest first</caption>
              <thead><tr><th scope="col">Instant</th><th scope="col">Notification</th><th scope="col">Recipient</th><th scope="col">Attempt</th><th scope="col">Result</th><th scope="col">HTTP</th><th scope="col">Resend</th></tr></thead>
              <tbody id="delivery-rows"></tbody>
            </table>
          </section>
        </main>
        </body>
        </html>
        """#

    static let style = #"""
        :root { color-scheme: light; --ink: #1d2330; --muted: #5b6475; --line: #d5d9e2; --accent: #1f5fbf; --bad: #a4262c; --good: #1e6b3a; --bg: #f6f7f9; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 8px; top: 8px; background: #fff; padding: 6px 10px; z-index: 10; }
        header { background: #fff; border-bottom: 1px solid var(--line); padding: 12px 20px; }
        .title { display: flex; align-items: baseline; gap: 16px; flex-wrap: wrap; }
        h1 { font-size: 20px; margin: 0; }
        h2 { font-size: 16px; margin: 0 0 8px; }
        .clock { font-size: 18px; margin: 6px 0; }
        .clock time { font-weight: 600; font-variant-numeric: tabular-nums; }
        .controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
        .inline { display: inline-flex; gap: 6px; align-items: center; }
        button { font: inherit; padding: 5px 12px; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
        button.secondary, button.copy, button.resend, #older { background: #fff; color: var(--accent); }
        input, select, textarea { font: inherit; padding: 4px 6px; border: 1px solid #8a93a5; border-radius: 4px; background: #fff; color: var(--ink); }
        :focus-visible { outline: 3px solid #f0a202; outline-offset: 2px; }
        main { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 16px; padding: 16px 20px; }
        section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; min-width: 0; }
        #customers-section, #notifications-section, #deliveries-section { grid-column: 1 / -1; }
        #customers, #notifications-section, #deliveries-section { overflow-x: auto; }
        td time { white-space: nowrap; }
        #timeline { max-width: 100%; height: auto; display: block; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        thead th { color: var(--muted); font-weight: 600; }
        .muted { color: var(--muted); }
        .yes { color: var(--good); }
        .no { color: var(--bad); }
        .status { font-weight: 600; }
        .status-active { color: var(--good); }
        .status-gracePeriod { color: #8a5a00; }
        .status-billingRetry, .status-expired, .status-revoked { color: var(--bad); }
        .family { margin: 0 0 6px; }
        .field { display: flex; flex-direction: column; margin: 0 0 8px; max-width: 420px; }
        .field small { color: var(--muted); }
        #status.error, #action-result.refusal { color: var(--bad); font-weight: 600; }
        #action-result.done { color: var(--good); }
        pre.payload { max-height: 320px; overflow: auto; background: var(--bg); padding: 8px; font-size: 12px; }
        textarea { width: 100%; font-family: ui-monospace, monospace; font-size: 12px; }
        details summary { cursor: pointer; color: var(--accent); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        @media (max-width: 900px) { main { grid-template-columns: 1fr; } }
        """#

    static let script = #"""
        // simctl's dashboard (docs/server.md, "The dashboard"). It knows no rule of the store: it reads the control API and
        // calls it, and shows what the server answers (a refused action's text included).
        "use strict";

        const api = "/simctl/v1";
        const ui = { digest: null, timeline: null, actions: null, nextBefore: null, busy: false };

        function $(id) {
          return document.getElementById(id);
        }

        function element(tag, attributes = {}, ...children) {
          const node = document.createElement(tag);
          for (const [name, value] of Object.entries(attributes)) {
            if (value === undefined || value === null || value === false) continue;
            if (name === "text") node.textContent = value;
            else if (name === "className") node.className = value;
            else node.setAttribute(name, value === true ? "" : String(value));
          }
          for (const child of children) {
            if (child === null || child === undefined) continue;
            node.append(child instanceof Node ? child : document.createTextNode(String(child)));
          }
          return node;
        }

        async function call(method, path, body) {
          const options = { method, cache: "no-store", headers: {} };
          if (body !== undefined) {
            options.body = JSON.stringify(body);
            options.headers["Content-Type"] = "application/json";
          }
          const response = await fetch(api + path, options);
          const text = await response.text();
          let json = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch (error) {
            json = { error: text };
          }
          return { ok: response.ok, status: response.status, json };
        }

        function say(text, kind = "info") {
          const status = $("status");
          status.textContent = text;
          status.className = kind;
        }

        // MARK: the clock

        async function change(path, body, label) {
          if (ui.busy) return;
          ui.busy = true;
          document.body.setAttribute("aria-busy", "true");
          say(label + "…");
          try {
            const answer = await call("POST", path, body);
            if (answer.ok) {
              const sent = answer.json.notificationsSent;
              say(label + ": the clock is at " + answer.json.at + (sent !== undefined ? "; " + sent + " notification(s) sent" : ""));
            } else {
              say(label + " refused (" + answer.status + "): " + (answer.json && answer.json.error), "error");
            }
            await refresh(true);
            return answer;
          } finally {
            ui.busy = false;
            document.body.removeAttribute("aria-busy");
          }
        }

        // MARK: state

        function renderState(state) {
          $("scenario-name").textContent = state.scenario;
          document.title = "simctl: " + state.scenario;
          $("app").textContent = state.bundleId + " · " + state.environment + " · seed " + state.seed + " · epoch " + state.epoch;
          $("clock").textContent = state.at;
          $("clock").setAttribute("datetime", state.at);
          $("counts").textContent =
            state.customerCount + " customer(s), " + state.notificationsSent + " notification(s), " +
            state.transactionCount + " transaction(s)" +
            (state.nextTimelineEntry ? "; next timeline entry: " + state.nextTimelineEntry.action + " at " + state.nextTimelineEntry.at : "");
          renderCustomers(state.customers, state.customerCount);
        }

        function renderCustomers(customers, total) {
          const shown = customers;
          const families = new Map();
          for (const customer of customers) {
            if (customer.family) families.set(customer.family.organizer, customer.family);
          }
          const list = element("div");
          for (const family of families.values()) {
            list.append(
              element("p", { className: "family" }, "Family: organizer ", element("strong", { text: family.organizer }),
                family.members.length ? "; members " + family.members.join(", ") : "; no members"));
          }
          const table = element("table", { id: "customer-table" });
          table.append(element("caption", { className: "visually-hidden", text: "Customers and their subscriptions" }));
          const head = element("tr");
          for (const title of ["Customer", "Family", "Product", "Status", "Expires", "Auto-renew", "Access", "Paid by"]) {
            head.append(element("th", { scope: "col", text: title }));
          }
          table.append(element("thead", {}, head));
          const body = element("tbody");
          for (const customer of shown) {
            const role = !customer.family ? "" : customer.family.organizer === customer.customer ? "organizer" : "member";
            const rows = customer.subscriptions.length ? customer.subscriptions : [null];
            rows.forEach((s, position) => {
              const row = element("tr", { "data-customer": customer.customer, "data-product": s ? s.productId : "" });
              if (position === 0) {
                row.append(element("th", { scope: "row", rowspan: rows.length, text: customer.customer }));
                row.append(element("td", { rowspan: rows.length, text: role }));
              }
              if (!s) {
                const owned = customer.entitlements.length ? "entitled to " + customer.entitlements.join(", ") : "no subscription";
                row.append(element("td", { colspan: 6, className: "muted", text: owned }));
              } else {
                row.append(element("td", { text: s.productId }));
                row.append(element("td", {}, element("span", { className: "status status-" + s.statusName, text: s.statusName + " (" + s.status + ")" })));
                row.append(element("td", {}, element("time", { datetime: s.expiresDate, text: s.expiresDate })));
                row.append(element("td", { text: s.autoRenewStatus === 1 ? "on" + (s.autoRenewProductId !== s.productId ? " → " + s.autoRenewProductId : "") : "off" }));
                row.append(element("td", { className: s.entitled ? "yes" : "no", text: s.entitled ? "granted" : "none" }));
                row.append(element("td", { text: s.inAppOwnershipType === "FAMILY_SHARED" ? s.purchaser + " (family)" : s.purchaser }));
              }
              body.append(row);
            });
          }
          table.append(body);
          list.append(table);
          if (total > shown.length) {
            list.append(element("p", { className: "muted", text: "The first " + shown.length + " of " + total + " customers (" + (total - shown.length) + " more)." }));
          }
          $("customers").replaceChildren(list);
          const names = $("customer-names");
          names.replaceChildren(...customers.map((c) => element("option", { value: c.customer })));
        }

        // MARK: the picture

        async function refreshTimeline() {
          const response = await fetch(api + "/timeline.svg", { cache: "no-store" });
          if (!response.ok) return;
          const svg = await response.text();
          if (svg === ui.timeline) return;
          ui.timeline = svg;
          const image = $("timeline");
          image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
          image.dataset.version = String(Number(image.dataset.version || "0") + 1);
        }

        // MARK: notifications

        function notificationRow(n) {
          const row = element("tr", { "data-type": n.notificationType, "data-uuid": n.notificationUUID });
          row.append(element("td", { text: n.sequence }));
          row.append(element("td", {}, element("time", { datetime: n.at, text: n.at })));
          row.append(element("td", { className: "type", text: n.notificationType }));
          row.append(element("td", { text: n.subtype || "" }));
          row.append(element("td", { text: n.recipient || "(the app)" }));
          row.append(element("td", { text: n.delivered === undefined ? "kept" : n.delivered ? "delivered" : "not yet" }));
          const signedId = "signed-" + n.sequence;
          const copy = element("button", { type: "button", className: "copy", "data-copy": signedId, text: "Copy signed payload" });
          const details = element("details", {},
            element("summary", { text: "Payload" }),
            element("pre", { className: "payload", tabindex: 0, text: JSON.stringify(n.payload, null, 2) }),
            element("label", { for: signedId, text: "Signed form (JWS)" }),
            element("textarea", { id: signedId, readonly: true, rows: 3, text: n.signedPayload }),
            copy);
          row.append(element("td", {}, details));
          return row;
        }

        async function refreshNotifications() {
          const answer = await call("GET", "/notifications?limit=50");
          if (!answer.ok) return;
          const open = new Set([...document.querySelectorAll("#notification-rows details[open]")].map((d) => d.closest("tr").dataset.uuid));
          const rows = answer.json.notifications.map(notificationRow);
          for (const row of rows) if (open.has(row.dataset.uuid)) row.querySelector("details").open = true;
          $("notification-rows").replaceChildren(...rows);
          $("notification-total").textContent = answer.json.total + " sent";
          ui.nextBefore = answer.json.nextBefore || null;
          $("older").hidden = ui.nextBefore === null;
        }

        async function olderNotifications() {
          if (ui.nextBefore === null) return;
          const answer = await call("GET", "/notifications?limit=50&before=" + ui.nextBefore);
          if (!answer.ok) return;
          $("notification-rows").append(...answer.json.notifications.map(notificationRow));
          ui.nextBefore = answer.json.nextBefore || null;
          $("older").hidden = ui.nextBefore === null;
        }

        async function copySigned(button) {
          const area = $(button.dataset.copy);
          area.select();
          try {
            await navigator.clipboard.writeText(area.value);
            button.textContent = "Copied";
          } catch (error) {
            button.textContent = "Selected: press Ctrl+C";
          }
        }

        // MARK: deliveries

        async function refreshDeliveries() {
          const answer = await call("GET", "/deliveries");
          if (!answer.ok) return;
          const d = answer.json;
          $("destination").textContent = d.destination
            ? "Delivering to " + d.destination + "; " + d.pendingDeliveryAttempts + " attempt(s) scheduled, " + d.undeliveredCount + " not delivered yet."
            : "Not delivering: start simctl serve with --deliver URL to send the notifications to a webhook.";
          $("delivery-table").hidden = !d.destination;
          const attempts = d.attempts.map((a) => Object.assign({ resend: false }, a)).concat(d.resends);
          attempts.sort((a, b) => b.instant - a.instant);
          const rows = attempts.slice(0, 100).map((a) => {
            const row = element("tr", { "data-result": a.sendAttemptResult });
            row.append(element("td", {}, element("time", { datetime: a.at, text: a.at })));
            row.append(element("td", { text: a.notificationType + (a.subtype ? "/" + a.subtype : "") }));
            row.append(element("td", { text: a.recipient || "(the app)" }));
            row.append(element("td", { text: a.attempt + (a.resend ? " (resend)" : a.chaos ? " (" + a.chaos + ")" : "") }));
            row.append(element("td", { className: a.sendAttemptResult === "SUCCESS" ? "yes" : "no", text: a.sendAttemptResult }));
            row.append(element("td", { text: a.httpStatus === undefined ? "" : a.httpStatus }));
            row.append(element("td", {}, element("button", { type: "button", className: "resend", "data-uuid": a.notificationUUID, text: "Resend" })));
            return row;
          });
          $("delivery-rows").replaceChildren(...rows);
        }

        async function resend(uuid) {
          const answer = await call("POST", "/notifications/" + encodeURIComponent(uuid) + "/resend");
          if (answer.ok) {
            const r = answer.json.resend;
            say("Resent " + r.notificationType + ": " + r.sendAttemptResult + (r.httpStatus ? " " + r.httpStatus : ""));
          } else {
            say("Resend refused (" + answer.status + "): " + (answer.json && answer.json.error), "error");
          }
          await refresh(true);
        }

        // MARK: actions, as the server describes them

        function field(argument) {
          const id = "arg-" + argument.name;
          const wrapper = element("div", { className: "field" });
          wrapper.append(element("label", { for: id, text: argument.name + (argument.required ? "" : " (optional)") }));
          let input;
          if (argument.choices) {
            input = element("select", { id, name: argument.name, "data-type": argument.type });
            if (!argument.required) input.append(element("option", { value: "", text: "—" }));
            for (const choice of argument.choices) input.append(element("option", { value: choice, text: choice }));
          } else {
            input = element("input", {
              id, name: argument.name, "data-type": argument.type,
              type: argument.type === "integer" ? "number" : "text",
              min: argument.type === "integer" ? 0 : null,
              list: argument.kind === "customer" ? "customer-names" : null,
              placeholder: argument.type === "array" ? "comma-separated" : null,
            });
          }
          if (argument.required) input.required = true;
          if (argument.documentation) {
            input.setAttribute("aria-describedby", id + "-doc");
            wrapper.append(input, element("small", { id: id + "-doc", text: argument.documentation }));
          } else {
            wrapper.append(input);
          }
          return wrapper;
        }

        function renderActionFields() {
          const action = ui.actions.actions.find((a) => a.name === $("action-name").value);
          const fields = action.arguments.map(field);
          fields.push(field(ui.actions.at));
          $("action-fields").replaceChildren(...fields);
          $("action-result").textContent = "";
          $("action-result").className = "";
        }

        async function loadActions() {
          const answer = await call("GET", "/actions");
          if (!answer.ok) return;
          ui.actions = answer.json;
          const select = $("action-name");
          const current = select.value;
          select.replaceChildren(...ui.actions.actions.map((a) => element("option", { value: a.name, text: a.name })));
          if (current) select.value = current;
          renderActionFields();
        }

        function value(input) {
          const text = input.value.trim();
          switch (input.dataset.type) {
            case "integer": return /^[0-9]+$/.test(text) ? Number(text) : text;
            case "boolean": return text === "true" ? true : text === "false" ? false : text;
            case "array": return text.split(",").map((part) => part.trim()).filter((part) => part.length > 0);
            default: return text;
          }
        }

        async function performAction(event) {
          event.preventDefault();
          const name = $("action-name").value;
          const body = {};
          const args = {};
          for (const input of $("action-fields").querySelectorAll("input, select")) {
            if (input.value.trim() === "") continue;
            if (input.name === "at") body.at = input.value.trim();
            else args[input.name] = value(input);
          }
          body[name] = args;
          const result = $("action-result");
          result.textContent = "";
          const answer = await change("/actions", body, name);
          if (!answer) return;
          if (answer.ok) {
            const sent = answer.json.notifications.map((n) => n.notificationType + (n.subtype ? "/" + n.subtype : ""));
            result.textContent = name + " done; notifications: " + (sent.length ? sent.join(", ") : "none");
            result.className = "done";
          } else {
            result.textContent = name + " refused (" + answer.status + "): " + answer.json.error;
            result.className = "refusal";
          }
        }

        // MARK: refresh

        async function refresh(force = false) {
          // The first page of the state (its digest covers every page): the 200 customers the page shows.
          const answer = await call("GET", "/state?limit=200");
          if (!answer.ok) {
            say("The server answered " + answer.status + ": " + (answer.json && answer.json.error), "error");
            return;
          }
          const state = answer.json;
          if (!force && state.digest === ui.digest) return;
          ui.digest = state.digest;
          renderState(state);
          await Promise.all([refreshNotifications(), refreshDeliveries(), refreshTimeline()]);
          document.body.dataset.digest = state.digest;
        }

        async function poll() {
          try {
            if (!ui.busy) await refresh();
          } catch (error) {
            say("The server did not answer (" + error.message + "); retrying.", "error");
          }
          setTimeout(poll, 1500);
        }

        document.addEventListener("DOMContentLoaded", async () => {
          for (const button of document.querySelectorAll("button[data-advance]")) {
            button.addEventListener("click", () => change("/advance", { by: button.dataset.advance }, button.textContent));
          }
          $("advance-to-form").addEventListener("submit", (event) => {
            event.preventDefault();
            change("/advance", { to: $("advance-to").value.trim() }, "Advance to " + $("advance-to").value.trim());
          });
          $("reset").addEventListener("click", () => change("/reset", {}, "Reset"));
          $("action-name").addEventListener("change", renderActionFields);
          $("action-form").addEventListener("submit", performAction);
          $("older").addEventListener("click", olderNotifications);
          document.addEventListener("click", (event) => {
            const target = event.target;
            if (!(target instanceof HTMLButtonElement)) return;
            if (target.classList.contains("copy")) copySigned(target);
            if (target.classList.contains("resend")) resend(target.dataset.uuid);
          });
          await loadActions();
          await refresh(true);
          document.body.dataset.ready = "true";
          setTimeout(poll, 1500);
        });
        """#
}

"""simctl's dashboard in headless Chromium, driven by selenium (run by Tests/Dashboard/browser_check.sh).

Starts `simctl serve Scenarios/family-billing-grace-recovery.yaml` delivering to a webhook of its own, loads `/`,
and checks, failing with a message on the first thing that does not hold:
- the customers of the scenario (alice, the organizer; bob, her family member) are shown;
- "Advance 1 month" moves the clock (2026-04-01T09:00:00Z), adds the DID_FAIL_TO_RENEW notification row and changes
  the picture; alice's subscription shows its grace period;
- the refund form (built by the page from GET /simctl/v1/actions) sends REFUND and alice's status becomes revoked;
- a refused action (bob joins a family while in one) shows the rule's text the server answered;
- a delivery can be resent from the deliveries table;
- the screenshot is not blank (its rows of pixels are not all alike);
- no console error, except the 409 network line of the refused action itself;
- every URL the page loaded (the browser's performance log) is simctl's own (or a data: URL the page made);
- a cross-origin POST made by another site's page in the same browser, a request with a foreign Host, and a POST with
  a foreign Origin are refused (403), while the page's own requests (above) and one with its own Origin work.
"""

import http.server
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

simctl, screenshot_path = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
started = time.time()
received = []


def fail(message):
    print(f"dashboard: FAILED: {message}", file=sys.stderr)
    raise SystemExit(1)


class Webhook(http.server.BaseHTTPRequestHandler):
    """The webhook simctl delivers to, and, at /evil, a page of another site that tries to drive simctl."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        received.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        target = self.server.simctl_url + "/simctl/v1/advance"
        page = (
            "<!doctype html><title>another site</title><script>"
            f"fetch({json.dumps(target)}, {{method: 'POST', mode: 'no-cors', body: '{{\"by\": \"P1M\"}}'}})"
            ".then(() => { document.title = 'sent'; }, () => { document.title = 'sent'; });"
            "</script>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)


webhook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
threading.Thread(target=webhook.serve_forever, daemon=True).start()
log_file = tempfile.NamedTemporaryFile(prefix="simctl-dashboard-", suffix=".log", delete=False).name
server = subprocess.Popen(
    [simctl, "serve", "Scenarios/family-billing-grace-recovery.yaml", "--port", "0", "--log", log_file,
     "--deliver", f"http://127.0.0.1:{webhook.server_address[1]}/apple"],
    stdout=subprocess.PIPE, text=True)
base = server.stdout.readline().strip()
if not base.startswith("http://127.0.0.1:"):
    fail(f"simctl serve printed {base!r}")
webhook.simctl_url = base


def request(method, path, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


options = webdriver.ChromeOptions()
options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1300",
                 "--disable-gpu", "--no-first-run", "--disable-extensions"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
wait = WebDriverWait(driver, 30)
loaded_urls = []


def collect_network():
    """Every URL the browser requested so far (the performance log empties as it is read)."""
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            loaded_urls.append(message["params"]["request"]["url"])


def text(element_id):
    return driver.find_element(By.ID, element_id).text


def rows(selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def texts(selector):
    """The text of each element matching `selector`, read in one call (the page re-renders a table when the store
    changes, so elements found earlier may be gone)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.innerText)", selector)


def customer_row(customer):
    found = texts(f'#customer-table tr[data-customer="{customer}"]')
    return found[0] if found else ""


def not_blank(png):
    """Whether the PNG's rows of pixels differ: decompress its IDAT chunks and compare the scanlines."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    offset, idat, width, height, bytes_per_pixel = 8, b"", 0, 0, 4
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        chunk = png[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", chunk[:8])
            bytes_per_pixel = {2: 3, 6: 4}.get(chunk[9], 4)
        elif kind == b"IDAT":
            idat += chunk
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bytes_per_pixel + 1
    lines = {raw[i * stride + 1:(i + 1) * stride] for i in range(height)}
    colours = set(raw[1:stride:bytes_per_pixel])
    return width > 0 and len(lines) > height // 4 and len(colours) > 1


try:
    driver.get(base + "/")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    if not driver.current_url.endswith("/simctl/v1/ui"):
        fail(f"/ did not lead to the dashboard: {driver.current_url}")
    wait.until(lambda d: "alice" in customer_row("alice") and "bob" in customer_row("bob"))
    if "organizer" not in customer_row("alice") or "member" not in customer_row("bob"):
        fail(f"the family roles are not shown: {customer_row('alice')!r}, {customer_row('bob')!r}")
    if "active (1)" not in customer_row("alice") or "granted" not in customer_row("alice"):
        fail(f"alice's subscription is not active with access: {customer_row('alice')!r}")
    print(f"dashboard: the page shows the customers ({time.time() - started:.1f} s)")

    # Advance 1 month: the clock, a new notification row, the picture.
    clock = text("clock")
    picture = driver.find_element(By.ID, "timeline").get_attribute("src")
    notifications = len(rows("#notification-rows tr"))
    driver.find_element(By.ID, "advance-1m").click()
    wait.until(lambda d: text("clock") == "2026-04-01T09:00:00Z")
    wait.until(lambda d: rows('#notification-rows tr[data-type="DID_FAIL_TO_RENEW"]'))
    wait.until(lambda d: d.find_element(By.ID, "timeline").get_attribute("src") != picture)
    if len(rows("#notification-rows tr")) <= notifications:
        fail("advancing a month added no notification row")
    if rows("#notification-rows tr")[0].get_attribute("data-type") != "DID_FAIL_TO_RENEW":
        fail("the newest notification is not first")
    wait.until(lambda d: "gracePeriod (4)" in customer_row("alice"))
    print(f"dashboard: advance 1 month: clock {clock} -> {text('clock')}, new DID_FAIL_TO_RENEW row, picture changed")

    # The payload on demand, and its signed form one click away.
    first = rows("#notification-rows tr")[0]
    first.find_element(By.TAG_NAME, "summary").click()
    payload = json.loads(first.find_element(By.CSS_SELECTOR, "pre.payload").text)
    if payload.get("notificationType") != "DID_FAIL_TO_RENEW" or "signedTransactionInfo" not in payload["data"]:
        fail(f"the decoded payload is not the notification's: {payload}")
    signed = first.find_element(By.TAG_NAME, "textarea").get_attribute("value")
    if signed.count(".") != 2:
        fail("the signed form is not a compact JWS")

    # The refund form, generated from GET /simctl/v1/actions.
    Select(driver.find_element(By.ID, "action-name")).select_by_value("refund")
    wait.until(lambda d: d.find_elements(By.ID, "arg-customer") and d.find_elements(By.ID, "arg-product"))
    driver.find_element(By.ID, "arg-customer").send_keys("alice")
    Select(driver.find_element(By.ID, "arg-product")).select_by_value("com.example.nightsky.family.monthly")
    driver.find_element(By.ID, "action-submit").click()
    wait.until(lambda d: rows('#notification-rows tr[data-type="REFUND"]'))
    wait.until(lambda d: "revoked (5)" in customer_row("alice"))
    if "refund done" not in text("action-result"):
        fail(f"the refund's result is not shown: {text('action-result')!r}")
    print("dashboard: the refund form sent REFUND; alice's subscription is revoked")

    # A refused action: the rule's text, as the server answered it.
    Select(driver.find_element(By.ID, "action-name")).select_by_value("joinFamily")
    wait.until(lambda d: d.find_elements(By.ID, "arg-customer") and not d.find_elements(By.ID, "arg-product"))
    driver.find_element(By.ID, "arg-customer").send_keys("bob")
    driver.find_element(By.ID, "action-submit").click()
    wait.until(lambda d: "refused" in text("action-result"))
    status, answer = request("POST", "/simctl/v1/actions", {"joinFamily": {"customer": "bob"}})
    if status != 409 or answer["error"] not in text("action-result") or "rule" not in answer["error"]:
        fail(f"the refusal shown is not the server's: {text('action-result')!r} / {status} {answer}")
    print(f"dashboard: a refused action shows the rule: {text('action-result')[:160]}")

    # Deliveries: each attempt's result and status, and a resend.
    wait.until(lambda d: rows("#delivery-rows tr"))
    delivered = len(received)
    rows("#delivery-rows tr button.resend")[0].click()
    wait.until(lambda d: "Resent" in text("status"))
    wait.until(lambda d: any("(resend)" in row for row in texts("#delivery-rows tr")))
    if len(received) != delivered + 1:
        fail(f"the resend made {len(received) - delivered} requests")
    if "SUCCESS" not in texts("#delivery-rows tr")[-1] or "200" not in texts("#delivery-rows tr")[-1]:
        fail("a delivery row does not show its result and HTTP status")
    print("dashboard: deliveries show each attempt; a resend reached the webhook")

    png = driver.get_screenshot_as_png()
    if not not_blank(png):
        fail("the screenshot is blank")
    if screenshot_path:
        driver.execute_script("window.scrollTo(0, 0); document.activeElement.blur();")
        png = driver.get_screenshot_as_png()
        with open(screenshot_path, "wb") as out:
            out.write(png)
    print(f"dashboard: screenshot ({len(png)} bytes) is not blank" + (f", written to {screenshot_path}" if screenshot_path else ""))

    # Keyboard: the first tab stop is the skip link, then the clock's buttons.
    # A fresh load (Tab then starts at the top of the page); the state is the server's, so the page shows it again.
    driver.refresh()
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    if "revoked (5)" not in customer_row("alice") or text("clock") != "2026-04-01T09:00:00Z":
        fail("a reload does not show the store as it is")
    focused = []
    for _ in range(3):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        active = driver.switch_to.active_element
        focused.append(active.get_attribute("id") or active.text)
    if focused[:2] != ["Skip to the store", "advance-1h"]:
        fail(f"the skip link and the clock's buttons are not the first Tab stops: {focused}")
    outline = driver.execute_script("return getComputedStyle(document.activeElement).outlineStyle")
    if outline in ("", "none"):
        fail(f"the focused button has no visible focus ring ({outline!r})")
    if "advance-1d" not in focused:
        fail(f"the clock's buttons are not reached with Tab: {focused}")

    # The console: nothing but the refused action's own 409.
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    unexpected = [e for e in errors if not (e["source"] == "network" and "/simctl/v1/actions" in e["message"] and "409" in e["message"])]
    if unexpected:
        fail(f"console errors: {unexpected}")
    collect_network()
    foreign = [url for url in loaded_urls if not (url.startswith(base + "/") or url.startswith("data:"))]
    if foreign or not loaded_urls:
        fail(f"the page loaded URLs simctl does not serve: {foreign}")
    print(f"dashboard: {len(loaded_urls)} requests, all to {base}; console: {len(errors)} error(s), the refusal's 409 only")

    # Another site's page, in the same browser, POSTs to simctl: refused, nothing changes.
    before = request("GET", "/simctl/v1/state")[1]["at"]
    driver.get(f"http://localhost:{webhook.server_address[1]}/evil")
    WebDriverWait(driver, 15).until(lambda d: d.title == "sent")
    time.sleep(0.3)
    after = request("GET", "/simctl/v1/state")[1]["at"]
    with open(log_file) as log:
        refused = [line for line in log if "POST /simctl/v1/advance -> 403" in line]
    if before != after or not refused:
        fail(f"another site's POST was not refused: clock {before} -> {after}, log {refused}")
    status_origin, _ = request("POST", "/simctl/v1/advance", {"by": "1h"}, {"Origin": "http://evil.example"})
    status_host, _ = request("GET", "/simctl/v1/state", headers={"Host": "evil.example"})
    status_own, _ = request("POST", "/simctl/v1/advance", {"by": "1h"}, {"Origin": base})
    if (status_origin, status_host, status_own) != (403, 403, 200):
        fail(f"foreign Origin {status_origin}, foreign Host {status_host}, own Origin {status_own}")
    print("dashboard: another site's POST, a foreign Origin and a foreign Host were refused (403); the page's own origin works")
    print(f"dashboard: passed in {time.time() - started:.1f} s")
finally:
    driver.quit()
    server.terminate()
    server.wait(10)
    webhook.shutdown()
    os.unlink(log_file)

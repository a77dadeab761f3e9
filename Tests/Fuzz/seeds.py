#!/usr/bin/env python3
"""Writes the fuzz seed corpora into .build/fuzz/seeds/<target>/ (generated, never committed):

- every scenario in Scenarios/ and Tests/SubscriptionSimulatorTests/Golden/Malformed, every ```yaml block of docs/,
  every .storekit file, and every regression input of Tests/Fuzz/Regressions;
- for http-control: requests to every route of `simctl serve`, the control API's JSON bodies (every action of the
  timeline, advance by and to, reset), pipelined, chunked and HTTP/1.0 requests, and the `.http` regression inputs;
- structure-aware seeds: those files with their numbers and times replaced by extreme values, and nesting of every
  construct (block lists, compact `- - `, `- key:` chains, flow brackets, mappings, JSON arrays) at depths around
  the limit and far past it, which byte mutation alone does not reach.
"""
import hashlib, os, pathlib, re, sys

root = pathlib.Path(__file__).resolve().parents[2]
out = root / ".build" / "fuzz" / "seeds"

def files(pattern_dirs, suffixes):
    for d in pattern_dirs:
        for p in sorted((root / d).rglob("*")):
            if p.is_file() and p.suffix in suffixes:
                yield p.read_bytes()

def doc_blocks():
    for p in sorted((root / "docs").glob("*.md")):
        for block in re.findall(r"```yaml\n(.*?)```", p.read_text(), re.S):
            yield block.encode()

EXTREMES = ["P999999999Y", "P292471208Y", "P1200000Y", "P400000Y", "P8030Y", "P999999999W", "PT999999999H",
            "999999999d", "0", "9999-12-31T23:59:59.999Z", "10000-01-01T00:00:00Z", "0000-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z", "18446744073709551616", "9223372036854775807"]

def extremes(text):
    # Each time-like value (`at:`, `until:`, `start:`, periods, durations, seeds) replaced by each extreme in turn.
    for key in ["at", "until", "start", "period", "duration", "familyDelay", "seed", "periods", "appAppleId"]:
        pattern = re.compile(r"(\b%s: ?)([^,}\n]+)" % key)
        if pattern.search(text):
            for value in EXTREMES:
                yield pattern.sub(lambda m: m.group(1) + value, text, count=1).encode()

def nesting():
    units = [("- ", ""), ("- - ", ""), ("[", "]"), ("{a: ", "}"), ("[{\"a\": ", "}]")]
    for depth in [99, 100, 101, 1000, 40000]:
        for open_, close in units:
            yield (open_ * depth + "x" + close * depth + "\n").encode()
        yield ("".join("  " * i + "- a:\n" for i in range(min(depth, 2000)))).encode()
        yield ("".join("  " * i + "a:\n" for i in range(min(depth, 2000))) + "  " * depth + "x\n").encode()
        yield ("name: t\nstart: 2026-01-01T00:00:00Z\nexpect:\n" + "  - " * depth + "x\n").encode()

def write(target, blobs):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    count = 0
    for blob in blobs:
        if not blob or len(blob) > 200_000:
            continue
        (d / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
        count += 1
    print(f"{target}: {count} seeds in {d.relative_to(root)}")

scenarios = list(files(["Scenarios", "Tests/SubscriptionSimulatorTests/Golden/Malformed"], {".yaml"})) + list(doc_blocks())
regressions_yaml = list(files(["Tests/Fuzz/Regressions"], {".yaml"}))
storekit = list(files(["Scenarios", "Tests"], {".storekit"}))
regressions_storekit = list(files(["Tests/Fuzz/Regressions"], {".storekit"}))
extreme = [b for s in scenarios for b in extremes(s.decode("utf-8", "replace"))][::10]

def request(method, target, body=b"", headers=()):
    head = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "".join(h + "\r\n" for h in headers)
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body

def http_requests():
    actions = [
        '{"purchase": {"customer": "bob", "product": "com.example.yearly"}}',
        '{"cancel": {"customer": "alice", "product": "com.example.monthly"}}',
        '{"resume": {"customer": "alice", "product": "com.example.monthly"}}',
        '{"failBilling": {"customer": "alice"}}', '{"fixBilling": {"customer": "alice"}}',
        '{"refund": {"customer": "alice"}}', '{"changePlan": {"customer": "alice", "product": "com.example.yearly"}}',
        '{"joinFamily": {"customer": "alice"}}', '{"openApp": {"customer": "alice"}}',
        '{"requestTestNotification": {}}', '{"raisePrice": {"product": "com.example.monthly", "price": 9.99}}',
        '{"extendRenewalDate": {"customer": "alice", "days": 30, "reason": 1}}',
        '{"at": "P1D", "purchase": {"customer": "carol", "product": "com.example.monthly"}}',
    ]
    control = [("POST", "/simctl/v1/actions", a) for a in actions] + [
        ("POST", "/simctl/v1/advance", '{"by": "P1M"}'), ("POST", "/simctl/v1/advance", '{"to": "2026-09-01T00:00:00Z"}'),
        ("POST", "/simctl/v1/advance", '{"by": "P292471208Y"}'), ("POST", "/simctl/v1/reset", ""),
        ("GET", "/simctl/v1/state", ""), ("GET", "/simctl/v1/deliveries", ""),
    ]
    reads = ["/inApps/v1/subscriptions/1000000000000001", "/inApps/v1/transactions/1000000000000001",
             "/inApps/v2/history/1000000000000001?revision=&sort=ASCENDING", "/inApps/v1/history/1000000000000001",
             "/inApps/v2/refund/lookup/1000000000000001", "/simctl/v1/state?customer=alice", "/nope%2Fx", "*"]
    single = [request(m, t, b.encode()) for m, t, b in control]
    single += [request("GET", t, headers=["Authorization: Bearer x.y.z"]) for t in reads]
    single += [request("POST", "/inApps/v1/notifications/history", b'{"startDate": 0, "endDate": 1}')]
    yield from single
    yield b"".join(single[:4]) + single[-1]  # pipelined
    body = b'{"by": "P1M"}'
    yield (b"POST /simctl/v1/advance HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
           + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
    yield b"GET /simctl/v1/state HTTP/1.0\r\n\r\n"
    yield request("POST", "/simctl/v1/actions", b"[" * 1000 + b"]" * 1000)

regressions_http = list(files(["Tests/Fuzz/Regressions"], {".http"}))

targets = sys.argv[1:] or ["yaml-reader", "scenario-pipeline", "storekit-importer", "http-control"]
for target in targets:
    if target == "yaml-reader":
        write(target, scenarios + regressions_yaml + list(nesting()))
    elif target == "scenario-pipeline":
        write(target, scenarios + regressions_yaml + extreme + list(nesting()))
    elif target == "storekit-importer":
        json_nesting = [("[" * d + "]" * d).encode() for d in [199, 200, 201, 40000]]
        write(target, storekit + regressions_storekit + json_nesting + [b"\xef\xbb\xbf" + s for s in storekit[:1]]
              + [s[: len(s) // 2] for s in storekit])
    elif target == "http-control":
        write(target, list(http_requests()) + regressions_http)

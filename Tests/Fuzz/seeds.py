#!/usr/bin/env python3
"""Writes the fuzz seed corpora into .build/fuzz/seeds/<target>/ (generated, never committed):

- every scenario in Scenarios/ and Tests/SubscriptionSimulatorTests/Golden/Malformed, every ```yaml block of docs/,
  every .storekit file, and every regression input of Tests/Fuzz/Regressions;
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

targets = sys.argv[1:] or ["yaml-reader", "scenario-pipeline", "storekit-importer"]
for target in targets:
    if target == "yaml-reader":
        write(target, scenarios + regressions_yaml + list(nesting()))
    elif target == "scenario-pipeline":
        write(target, scenarios + regressions_yaml + extreme + list(nesting()))
    elif target == "storekit-importer":
        json_nesting = [("[" * d + "]" * d).encode() for d in [199, 200, 201, 40000]]
        write(target, storekit + regressions_storekit + json_nesting + [b"\xef\xbb\xbf" + s for s in storekit[:1]]
              + [s[: len(s) // 2] for s in storekit])

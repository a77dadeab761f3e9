"""Headless Chromium checks of the project's SVG pictures (docs/*.svg, the `svg` format of `simctl run`).

check: for each picture, Chromium loads it (file://), `--dump-dom` must hold no parser error and every text the file
draws (lane names, labels, marker and bar titles), and a screenshot must not be blank (PNG decoded here with zlib and
struct: enough pixels that are not the white background, and several colours); and, laid out by Chromium with its
own fonts, no two texts overlap and none leaves the canvas (each text's getBBox(), with a tolerance of
LAYOUT_TOLERANCE px for font differences; the picture's writer lays them out with its own metrics, TextMetrics).
png: renders one picture to a PNG at its own size (the PNG in docs/).
Standard library only.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
# How far two rendered text boxes may overlap (or one leave the canvas), in px: the writer measures with DejaVu Sans
# advances rounded up; Chromium's boxes include the font's whole ascent and descent.
LAYOUT_TOLERANCE = 2.5

LAYOUT_SCRIPT = """
<script>
window.addEventListener('load', () => {
  const svg = document.querySelector('svg');
  const width = svg.width.baseVal.value, height = svg.height.baseVal.value, t = %TOL%;
  const boxes = [];
  for (const text of svg.querySelectorAll('text')) {
    if (text.hasAttribute('transform')) continue;
    const b = text.getBBox();
    boxes.push({x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height, text: text.textContent});
  }
  const problems = [];
  for (const b of boxes) {
    if (b.x0 < -t || b.y0 < -t || b.x1 > width + t || b.y1 > height + t)
      problems.push('leaves the canvas: ' + JSON.stringify(b));
  }
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.x0 < b.x1 - t && b.x0 < a.x1 - t && a.y0 < b.y1 - t && b.y0 < a.y1 - t)
      problems.push('overlap: ' + JSON.stringify(a) + ' and ' + JSON.stringify(b));
  }
  const out = document.createElement('pre');
  out.id = 'layout';
  out.textContent = JSON.stringify({texts: boxes.length, problems: problems});
  document.body.appendChild(out);
});
</script>
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no chromium on PATH: run Tests/Render/setup.sh first")


def browser(args, timeout=60):
    base = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--disable-dev-shm-usage", "--force-device-scale-factor=1"]
    result = subprocess.run(base + args, capture_output=True, timeout=timeout, text=True)
    return result


def size(path):
    try:
        root = ET.parse(path).getroot()
        return int(float(root.get("width"))), int(float(root.get("height")))
    except (ET.ParseError, TypeError, ValueError):
        return 1000, 800


def screenshot(path, png):
    width, height = size(path)
    result = browser([f"--window-size={width},{height}", f"--screenshot={png}", "file://" + os.path.abspath(path)])
    if not os.path.exists(png):
        sys.exit(f"{path}: chromium wrote no screenshot (exit {result.returncode}): {result.stderr[-2000:]}")


def decode_png(data):
    """Width, height, channels and the unfiltered rows of an 8-bit non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace != 0 or colour not in (0, 2, 4, 6):
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line
    return width, height, channels, rows


def ink(png):
    """The share of pixels that are not the white background, and the number of distinct colours."""
    width, height, channels, rows = decode_png(open(png, "rb").read())
    inked, colours = 0, set()
    for line in rows:
        for x in range(0, width * channels, channels):
            pixel = bytes(line[x:x + min(channels, 3)])
            if len(colours) < 1000:
                colours.add(pixel)
            if pixel.count(255) != len(pixel):
                inked += 1
    return inked / (width * height), len(colours)


def texts(path):
    """Every text the picture draws or names: <text> contents and <title> contents."""
    root = ET.parse(path).getroot()
    found = []
    for element in root.iter():
        if element.tag in (SVG + "text", SVG + "title") and element.text:
            found.append(element.text)
    lanes = [e.text for e in root.iter(SVG + "text") if e.get("data-lane")]
    return found, lanes


def layout(path, scratch):
    """Chromium's boxes of the picture's texts: (number of texts, problems)."""
    import json
    import re
    source = open(path, encoding="utf-8").read()
    source = re.sub(r"^<\?xml[^>]*>", "", source)
    page = os.path.join(scratch, "layout.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><head><meta charset='utf-8'><style>body{margin:0}</style></head><body>")
        f.write(source)
        f.write(LAYOUT_SCRIPT.replace("%TOL%", str(LAYOUT_TOLERANCE)))
        f.write("</body></html>")
    dom = browser(["--virtual-time-budget=5000", "--dump-dom", "file://" + page])
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom.stdout, re.S)
    if not found:
        return 0, [f"no layout result from chromium (exit {dom.returncode}): {dom.stderr[-300:]}"]
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                        .replace("&amp;", "&"))
    return result["texts"], result["problems"]


def check(paths):
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for path in paths:
            dom = browser(["--dump-dom", "file://" + os.path.abspath(path)])
            problems = []
            if dom.returncode != 0:
                problems.append(f"chromium exited {dom.returncode}: {dom.stderr[-500:]}")
            if "parsererror" in dom.stdout or "This page contains the following errors" in dom.stdout:
                problems.append("chromium reports an XML error")
            try:
                wanted, lanes = texts(path)
            except ET.ParseError as error:
                problems.append(f"not well-formed XML: {error}")
                wanted, lanes = [], ["(unread)"]
            if not lanes:
                problems.append("no lane labels in the file")
            # The DOM is serialized with &, <, > escaped; compare escaped texts.
            dumped = dom.stdout.replace("&quot;", '"').replace("&#39;", "'").replace("&apos;", "'")
            missing = [t for t in wanted
                       if t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") not in dumped]
            if missing:
                problems.append(f"{len(missing)} texts not in the DOM, first: {missing[0]!r}")
            png = os.path.join(scratch, "shot.png")
            screenshot(path, png)
            share, colours = ink(png)
            if share < 0.03 or colours < 6:
                problems.append(f"the rendered image looks blank: {share:.1%} non-white pixels, {colours} colours")
            measured, overlaps = layout(path, scratch)
            problems += overlaps[:10]
            if len(overlaps) > 10:
                problems.append(f"... {len(overlaps) - 10} more layout problems")
            status = "FAIL" if problems else "ok"
            print(f"{status} {path}: {len(wanted)} texts in the DOM ({len(lanes)} lanes), {measured} text boxes "
                  f"measured (tolerance {LAYOUT_TOLERANCE} px), "
                  f"{share:.1%} of pixels drawn, {colours}{'+' if colours >= 1000 else ''} colours")
            for problem in problems:
                print(f"  {problem}")
            failures += bool(problems)
    return failures


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "check":
        sys.exit(1 if check(sys.argv[2:]) else 0)
    if len(sys.argv) == 4 and sys.argv[1] == "png":
        screenshot(sys.argv[2], sys.argv[3])
        share, colours = ink(sys.argv[3])
        print(f"wrote {sys.argv[3]}: {share:.1%} of pixels drawn, {colours} colours")
        return
    sys.exit("usage: render.py check SVG... | render.py png SVG PNG")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The layer check: fails on any reference from a lower layer to a higher one (architecture review §2.3, §4.5).

Library folders. Every Swift file of Sources/SubscriptionSimulator belongs to the folder it is in (the first path
component below the library). The check indexes the names the library declares at top level: `struct`, `enum`,
`class`, `protocol`, `actor`, `typealias`, `func`, `let` and `var`, except `private` and `fileprivate` ones. A nested
type is reached through its enclosing type, so it is not indexed on its own (`SHA256.Hasher` is not Swift's
`Hasher`). Then, with comments and string literals blanked (interpolations stay code), it reads every identifier a
file uses. An identifier declared in the file's own folder is local; one declared only in other folders is a
reference, and a back edge when every folder declaring it is above the file's folder in FOLDERS. `extension X`, where
X is declared only in higher folders, is a back edge too. Names after `.` (members), lowercase names before `:`
(argument labels) and lowercase names the file declares itself (locals and members that shadow a top-level name)
are not references. Members that an extension in a higher folder adds to a lower type are not indexed.

The order-key seam (issue 44). The parallel run lives in Run/Parts/ (SEAM_FOLDER). The store and the layers below
it order what they emit by Engine's order key and know nothing of parts: no file of SEAM_UNAWARE folders may name
anything Run/Parts declares, nor Run/Parts' files, not even in comments. Run/Parts reads the order through the order
key only: it may not name the store's internals that carry it (SEAM_HIDDEN), as members neither.

Targets. Every Swift file of Sources/<Target>/ may import only the project targets TARGETS allows it, and a toolchain
module of RESTRICTED_MODULES only from the targets listed there.

Prints each back edge as `path:line: message` (a file's first use of each name), then
"layers: N files, M references, K back edges" (M counts every use of a name declared in another folder); exits 1
when K > 0, else 0. `--order` prints the order (README quotes it).
Python 3 standard library only. Run from anywhere; `--root` names the package (default: this file's ../..).
"""

import argparse
import re
import sys
from pathlib import Path

# The one place the order lives. The library's folders, lowest first: a folder may use names declared in folders
# to its left, never in folders to its right.
FOLDERS = [
    "Engine",
    "Catalog",
    "Lifecycle",
    "Family",
    "Store",
    "Signing",
    "Wire",
    "ServerAPI",
    "Delivery",
    "StoreKitImport",
    "Scenario",
    "Reports",
    "Output",
    "Run",
    "Check",
    "Population",
]

# The order-key seam: the folder of the parallel run, the folders that must not know it, and the store's internals it
# must not reach (it reads the records' order keys through `SimulatedStore`'s order-key accessors).
SEAM_FOLDER = "Run/Parts"
SEAM_UNAWARE = ["Engine", "Catalog", "Lifecycle", "Family", "Store"]
SEAM_HIDDEN = ["emissions", "directory", "EmissionLog", "CustomerDirectory", "CustomerRecord", "eventGroup",
               "notificationOrder", "changeOrder"]

# The package's targets, lowest first, each with the project targets it may import (all listed before it).
TARGETS = [
    ("CSHA256", []),
    ("CP256", []),
    ("CBase64", []),
    ("SimctlCrypto", ["CSHA256", "CP256", "CBase64"]),
    ("SimctlHTTP", []),
    ("SubscriptionSimulator", ["SimctlCrypto"]),
    ("SubscriptionSimulatorTesting", ["SubscriptionSimulator", "SimctlCrypto"]),
    ("SimctlHTTPDelivery", ["SubscriptionSimulator", "SimctlCrypto", "SimctlHTTP"]),
    ("SimctlURLSessionDelivery", ["SubscriptionSimulator"]),
    ("SimctlServer", ["SubscriptionSimulator", "SimctlCrypto", "SimctlHTTP"]),
    ("SimctlCommand", ["SubscriptionSimulator", "SimctlCrypto", "SimctlHTTP", "SimctlHTTPDelivery",
                       "SimctlURLSessionDelivery", "SimctlServer"]),
    ("simctl", ["SimctlCommand"]),
    ("simbench", ["SubscriptionSimulator", "SimctlCrypto", "SimctlHTTP", "SimctlHTTPDelivery", "SimctlServer"]),
]

# Toolchain modules only some targets may import: URLSession's networking (libcurl, TLS) stays in the HTTPS transport,
# so the library and everything an embedder links leave it out (issue 25).
RESTRICTED_MODULES = {"FoundationNetworking": ["SimctlURLSessionDelivery"]}

LIBRARY = "SubscriptionSimulator"

ORDER_TEXT = " < ".join(FOLDERS)

IDENTIFIER = re.compile(r"`?([A-Za-z_][A-Za-z0-9_]*)`?")
DECLARATION = re.compile(
    r"\b(struct|enum|class|protocol|actor|typealias|func|let|var|extension)\s+`?([A-Za-z_][A-Za-z0-9_]*)`?")
# `class func`, `class var`, ...: a class member, not a class.
NOT_A_CLASS_NAME = {"func", "var", "let", "subscript", "init", "deinit", "override", "final", "static"}
PRIVATE = re.compile(r"\b(private|fileprivate)\b(?!\s*\()")  # `private(set)` still declares a visible name
IMPORT = re.compile(r"^[ \t]*(?:@\w+[ \t]+)*(?:(?:public|package|internal)[ \t]+)?import[ \t]+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|let|var)[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)",
                    re.MULTILINE)


def blank_comments_and_strings(text):
    """The text with comments and string literal contents replaced by spaces (newlines kept, so offsets and lines
    stay), and the code inside string interpolations `\\( ... )` kept."""
    out = []
    i, n = 0, len(text)
    # Frames: ("code", open parentheses) for code (the first is the file; later ones are interpolations), and
    # ("string", number of #, multiline).
    stack = [["code", 0]]

    def blank(s):
        out.append("".join(c if c == "\n" else " " for c in s))

    while i < n:
        frame = stack[-1]
        c = text[i]
        if frame[0] == "code":
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(text[i:end])
                i = end
            elif text.startswith("/*", i):
                depth, j = 0, i
                while j < n:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                        if depth == 0:
                            break
                    else:
                        j += 1
                blank(text[i:j])
                i = j
            elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
                hashes = len(text[i:]) - len(text[i:].lstrip("#"))
                j = i + hashes
                multiline = text.startswith('"""', j)
                j += 3 if multiline else 1
                blank(text[i:j])
                stack.append(["string", hashes, multiline])
                i = j
            elif c == "(" and len(stack) > 1:
                frame[1] += 1
                out.append(c)
                i += 1
            elif c == ")" and len(stack) > 1:
                if frame[1] == 0:
                    stack.pop()  # the end of an interpolation: back in the string
                    out.append(" ")
                else:
                    frame[1] -= 1
                    out.append(c)
                i += 1
            else:
                out.append(c)
                i += 1
        else:
            _, hashes, multiline = frame
            escape = "\\" + "#" * hashes
            close = ('"""' if multiline else '"') + "#" * hashes
            if text.startswith(escape + "(", i):
                blank(escape + "(")
                i += len(escape) + 1
                stack.append(["code", 0])
            elif text.startswith(escape, i):
                blank(text[i:i + len(escape) + 1])
                i += len(escape) + 1
            elif text.startswith(close, i):
                blank(close)
                i += len(close)
                stack.pop()
            else:
                blank(c)
                i += 1
    return "".join(out)


class SwiftFile:
    """One Swift file: its path, its code without comments and strings, and brace depth by offset."""

    def __init__(self, path, display):
        self.path = path
        self.display = display
        self.code = blank_comments_and_strings(path.read_text(encoding="utf-8"))
        self.depths = []
        depth = 0
        for c in self.code:
            self.depths.append(depth)
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.code)]

    def line(self, offset):
        """The 1-based line of an offset."""
        low, high = 0, len(self.line_starts)
        while high - low > 1:
            middle = (low + high) // 2
            if self.line_starts[middle] <= offset:
                low = middle
            else:
                high = middle
        return low + 1

    def line_text_before(self, offset):
        return self.code[self.line_starts[self.line(offset) - 1]:offset]

    def declarations(self):
        """(kind, name, offset) of each top-level declaration the index keeps (not private), and of each top-level
        `extension` (for the extension check)."""
        found = []
        for m in DECLARATION.finditer(self.code):
            kind, name = m.group(1), m.group(2)
            if self.depths[m.start()] != 0 or (kind == "class" and name in NOT_A_CLASS_NAME):
                continue
            if kind == "extension":
                found.append((kind, name, m.start(2)))
                continue
            if PRIVATE.search(self.line_text_before(m.start())):
                continue
            found.append((kind, name, m.start(2)))
        return found

    def local_lowercase_names(self):
        """Lowercase names the file declares itself (members, locals, cases): they shadow a top-level name."""
        return {m.group(2) for m in re.finditer(r"\b(let|var|func|case)\s+`?([a-z_][A-Za-z0-9_]*)", self.code)}

    def identifiers(self):
        """(name, offset) of every identifier that may name a declaration: not after `.`, not a lowercase
        argument label (`name:`), not on an import line."""
        import_lines = {self.line(m.start()) for m in IMPORT.finditer(self.code)}
        for m in IDENTIFIER.finditer(self.code):
            name, start, end = m.group(1), m.start(), m.end()
            if start > 0 and self.code[start - 1] in ".$":
                continue
            if start > 0 and (self.code[start - 1].isalnum() or self.code[start - 1] == "_"):
                continue
            if name[0].islower() and end < len(self.code) and self.code[end] == ":":
                continue
            if self.line(start) in import_lines:
                continue
            yield name, m.start(1)


def library_files(root):
    library = root / "Sources" / LIBRARY
    return sorted(p for p in library.rglob("*.swift") if p.is_file()), library


def check(root):
    """(violations, number of library files, number of cross-folder references)."""
    violations = []
    rank = {folder: index for index, folder in enumerate(FOLDERS)}
    paths, library = library_files(root)
    files = []
    for path in paths:
        relative = path.relative_to(library)
        folder = relative.parts[0] if len(relative.parts) > 1 else None
        display = str(path.relative_to(root))
        source = SwiftFile(path, display)
        if folder is None:
            violations.append(f"{display}:1: the file is in no folder of the library; put it in one of: {ORDER_TEXT}")
            continue
        if folder not in rank:
            violations.append(f"{display}:1: folder {folder} is not in the order; add it to FOLDERS in "
                              f"Tests/Layers/check_layers.py where it belongs (order: {ORDER_TEXT})")
            continue
        files.append((folder, source))

    declared = {}  # name -> set of folders declaring it
    extensions = []  # (folder, file, name, offset)
    for folder, source in files:
        for kind, name, offset in source.declarations():
            if kind == "extension":
                extensions.append((folder, source, name, offset))
            else:
                declared.setdefault(name, set()).add(folder)

    def higher(folder, name):
        """The lowest folder declaring `name` when every folder declaring it is above `folder`, else None."""
        owners = declared.get(name)
        if not owners or folder in owners:
            return None
        lowest = min(owners, key=rank.get)
        return lowest if rank[lowest] > rank[folder] else None

    extension_sites = set()
    for folder, source, name, offset in extensions:
        extension_sites.add((source.display, offset))
        above = higher(folder, name)
        if above:
            violations.append(f"{source.display}:{source.line(offset)}: {folder} extends {name} declared in {above}, "
                              f"which is above it (order: {ORDER_TEXT})")

    references = 0
    for folder, source in files:
        shadowed = source.local_lowercase_names()
        reported = set()
        for name, offset in source.identifiers():
            owners = declared.get(name)
            if not owners or folder in owners or (source.display, offset) in extension_sites:
                continue
            if name[0].islower() and name in shadowed:
                continue
            references += 1
            above = higher(folder, name)
            if above and name not in reported:
                reported.add(name)
                violations.append(f"{source.display}:{source.line(offset)}: {folder} references {name} declared in "
                                  f"{above}, which is above it (order: {ORDER_TEXT})")

    violations.extend(check_seam(library, files))
    violations.extend(check_imports(root))
    return violations, len(paths), references


def check_seam(library, files):
    """A violation for each place the order-key seam is crossed (SEAM_FOLDER, SEAM_UNAWARE, SEAM_HIDDEN)."""
    violations = []
    seam = library / SEAM_FOLDER
    inside = [source for _, source in files if seam in source.path.parents]
    names = set()
    for source in inside:
        names.update(name for kind, name, _ in source.declarations() if kind != "extension")
    stems = {source.path.stem for source in inside}
    words = sorted(names | stems | {SEAM_FOLDER})
    mention = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(re.escape(w) for w in words) + r")(?![A-Za-z0-9_])") \
        if inside else None
    for folder, source in files:
        if folder in SEAM_UNAWARE and mention:
            text = source.path.read_text(encoding="utf-8")  # comments too: the store does not know about parts
            found = mention.search(text)
            if found:
                line = text.count("\n", 0, found.start()) + 1
                violations.append(f"{source.display}:{line}: {folder} names {found.group(1)} of {SEAM_FOLDER}; the "
                                  f"store orders its records by Engine's order key and knows nothing of parts")
        if source in inside:
            hidden = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(SEAM_HIDDEN) + r")(?![A-Za-z0-9_])")
            found = hidden.search(source.code)
            if found:
                violations.append(f"{source.display}:{source.line(found.start())}: {SEAM_FOLDER} reaches into the "
                                  f"store ({found.group(1)}); it reads the order through Engine's order key only")
    return violations


def check_imports(root):
    """A violation for each import of a project target the importing target may not import."""
    violations = []
    allowed = dict(TARGETS)
    sources = root / "Sources"
    targets = sorted(p.name for p in sources.iterdir() if p.is_dir()) if sources.is_dir() else []
    project = set(allowed) | set(targets)
    for target in targets:
        if target not in allowed:
            violations.append(f"Sources/{target}: target {target} is not in the order; add it to TARGETS in "
                              "Tests/Layers/check_layers.py with the targets it may import")
            continue
        for path in sorted((sources / target).rglob("*.swift")):
            source = SwiftFile(path, str(path.relative_to(root)))
            for m in IMPORT.finditer(source.code):
                module = m.group(1)
                if module in RESTRICTED_MODULES and target not in RESTRICTED_MODULES[module]:
                    violations.append(f"{source.display}:{source.line(m.start(1))}: {target} imports {module}, which "
                                      f"only {', '.join(RESTRICTED_MODULES[module])} may import")
                    continue
                if module in project and module != target and module not in allowed[target]:
                    may = ", ".join(allowed[target]) or "no project target"
                    violations.append(f"{source.display}:{source.line(m.start(1))}: {target} imports {module}, "
                                      f"which is above it or beside it (it may import {may})")
    return violations


def order_text():
    lines = ["Library folders, lowest first (a folder may use names declared to its left, never to its right):",
             ORDER_TEXT,
             "Targets, lowest first, and the project targets each may import:"]
    for target, imports in TARGETS:
        lines.append(f"{target}: {', '.join(imports) or '(none)'}")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--order", action="store_true", help="print the order and exit")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the package folder (default: this file's ../..)")
    options = parser.parse_args(argv)
    if options.order:
        print(order_text())
        return 0
    violations, files, references = check(options.root)
    for violation in violations:
        print(violation)
    print(f"layers: {files} files, {references} references, {len(violations)} back edges")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env bash
# Writes each ```js block of a Markdown file whose first line is `// NAME.mjs...` to DIR/NAME.mjs (docs/server.md's
# Node.js section); prints the names written. Blocks that do not start so are examples not meant to run alone.
#   extract.sh FILE.md DIR
set -euo pipefail
awk -v dir="$2" '
  /^```js$/ { on = 1; file = ""; next }
  /^```$/ { if (file != "") close(file); on = 0; file = ""; next }
  on && file == "" {
    if (match($0, /^\/\/ [A-Za-z0-9_-]+\.mjs/)) { file = dir "/" substr($0, 4, RLENGTH - 3); print substr($0, 4, RLENGTH - 3) > "/dev/stderr" }
    else { on = 0; next }
  }
  on { print > file }
' "$1"

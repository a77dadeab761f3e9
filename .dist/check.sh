#!/usr/bin/env bash
# Proves the release binary and the image on a system without Swift (docs/install.md, "How the release is checked"):
#   bash .dist/check.sh ARCHIVE.tar.gz [rootfs|image|all]      (default all; run from the package root, as root)
# rootfs: in the minimal Debian root filesystem of .dist/rootfs.sh (no Swift, /proc mounted), unpacked afresh:
#   1. `run --format jsonl` of every Scenario is byte-identical to the host's (the debug build when it exists, which
#      is also a check that release and debug builds agree; else the same binary on the host);
#   2. `serve` answers GET /simctl/v1/health and /simctl/v1/state from the host;
#   3. HTTPS delivery to a receiver on the host whose throwaway CA is in the root filesystem's CA store: the bodies are
#      byte-identical to `run --format jsonl`;
#   4. without /proc the binary says it cannot read its command line and exits 71 (not help and 0);
#   5. without libcurl4 it fails as docs/install.md says (exit 127, "libcurl.so.4: cannot open shared object file").
# image: the image of .dist/image.sh under podman (runc, explicit ulimits: podman's defaults fail on this machine
#   class): its default command serves on 8080, published on a host port (health and state answered from the host, the
#   warning about the control API on standard error), and SIGTERM (podman stop) ends it with 0; `run` gives the same
#   bytes; `check`, on the host's network, finds a classic bug of the Python reference backend on the host
#   (Tests/Check/backend.py --bug fail-ends-access).
set -euo pipefail
archive="${1:?usage: check.sh ARCHIVE.tar.gz [rootfs|image|all]}"
what="${2:-all}"
archive="$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")"
dist="$(cd "$(dirname "$0")" && pwd)"
cd "$dist/.."
[ "$(id -u)" = 0 ] || { echo "check: chroot and podman need root" >&2; exit 1; }
name="$(basename "$archive" .tar.gz)"
version="${name#simctl-appstore-}"
version="${version%-linux-*}"
work="$(mktemp -d)"
root="$work/root"
pids=()
container=""
cleanup() {
  local status=$?
  set +e
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; done
  [ -n "$container" ] && podman rm -f "$container" > /dev/null 2>&1
  mountpoint -q "$root/proc" && umount "$root/proc"
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
fail() { echo "check: $*" >&2; exit 1; }
tar -xzf "$archive" -C "$work"
binary="$work/$name/simctl"
host_simctl=".build/debug/simctl"
[ -x "$host_simctl" ] || host_simctl="$binary"

# Waits for the first line of FILE (a URL that serve prints) and prints it.
first_line() {
  for _ in $(seq 300); do [ -s "$1" ] && { head -1 "$1"; return; }; sleep 0.1; done
  fail "nothing printed to $1"
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

check_rootfs() {
  local started=$SECONDS
  mkdir -p "$root"
  tar -xf "$(bash "$dist/rootfs.sh")" -C "$root"
  [ ! -e "$root/usr/bin/swift" ] && ! ls "$root/usr/lib" | grep -qi swift || fail "the root filesystem has Swift in it"
  install -m 755 "$binary" "$root/usr/local/bin/simctl"
  cp -R Scenarios "$root/Scenarios"
  mount -t proc proc "$root/proc"
  in_root() { chroot "$root" /usr/local/bin/simctl "$@"; }
  in_root --version | grep -q "^simctl $version (commit " || fail "--version in the root filesystem: $(in_root --version)"

  # 1. Every Scenario, byte for byte.
  local count=0 scenario
  for scenario in Scenarios/*.yaml; do
    in_root run "/$scenario" --format jsonl > "$work/chroot.jsonl" || fail "$scenario: exit $? in the root filesystem"
    "$host_simctl" run "$scenario" --format jsonl > "$work/host.jsonl"
    cmp -s "$work/chroot.jsonl" "$work/host.jsonl" || fail "$scenario: the root filesystem's jsonl differs from $host_simctl's"
    count=$((count + 1))
  done
  echo "rootfs: $count scenarios, run --format jsonl byte-identical to $host_simctl"

  # 2. serve answers from the host.
  chroot "$root" /usr/local/bin/simctl serve /Scenarios/family-billing-grace-recovery.yaml > "$work/serve.out" \
    2> "$work/serve.err" &
  local serve=$!
  pids+=("$serve")
  local url
  url="$(first_line "$work/serve.out")"
  [ "$(curl -fsS "$url/simctl/v1/health")" = '{"status":"ok"}' ] || fail "serve: /simctl/v1/health"
  curl -fsS "$url/simctl/v1/state" | python3 -c 'import json, sys; assert "customers" in json.load(sys.stdin)' \
    || fail "serve: /simctl/v1/state"
  kill -TERM "$serve"
  wait "$serve" || fail "serve: exit $? after SIGTERM"
  echo "rootfs: serve answered $url/simctl/v1/health and /simctl/v1/state, exit 0 on SIGTERM"

  # 3. HTTPS with a throwaway CA in the root filesystem's store.
  bash Tests/Delivery/make_test_ca.sh "$work" "simctl dist check CA $$"
  cp "$work/ca.pem" "$root/usr/local/share/ca-certificates/simctl-dist-check.crt"
  chroot "$root" update-ca-certificates > /dev/null 2>&1 || fail "update-ca-certificates in the root filesystem"
  : > "$work/bodies"
  python3 Tests/Delivery/https_receiver.py "$work/server.pem" "$work/server.key" "$work/bodies" > "$work/receiver" &
  pids+=("$!")
  local port
  port="$(first_line "$work/receiver")"
  scenario=Scenarios/family-stop-sharing.yaml
  in_root run "/$scenario" --deliver "https://127.0.0.1:$port/asn" --deliver-timeout 1m > /dev/null \
    2> "$work/https.err" || { cat "$work/https.err" >&2; fail "https delivery: exit $?"; }
  "$host_simctl" run "$scenario" --format jsonl > "$work/expected.jsonl"
  cmp -s "$work/bodies" "$work/expected.jsonl" || fail "https delivery: the bodies received differ"
  echo "rootfs: https delivery through the root filesystem's CA store, $(wc -l < "$work/bodies") bodies identical"

  # 4. No /proc: a clear error, not help.
  umount "$root/proc"
  local status=0
  chroot "$root" /usr/local/bin/simctl run /Scenarios/family-refund.yaml > "$work/noproc.out" 2> "$work/noproc.err" \
    || status=$?
  { [ "$status" = 71 ] && grep -q "cannot read the command line" "$work/noproc.err" && [ ! -s "$work/noproc.out" ]; } \
    || fail "without /proc: exit $status, $(cat "$work/noproc.err" "$work/noproc.out" | head -3)"
  echo "rootfs: without /proc, exit 71: $(head -1 "$work/noproc.err")"
  mount -t proc proc "$root/proc"

  # 5. Without libcurl4: the documented failure.
  mkdir -p "$work/aside"
  mv "$root"/usr/lib/*/libcurl.so.4* "$work/aside/"
  status=0
  in_root --version > /dev/null 2> "$work/nocurl.err" || status=$?
  mv "$work/aside/"* "$(dirname "$(ls -d "$root"/usr/lib/*/libc.so.6)")/"
  { [ "$status" = 127 ] && grep -q "libcurl.so.4: cannot open shared object file" "$work/nocurl.err"; } \
    || fail "without libcurl4: exit $status, $(cat "$work/nocurl.err")"
  echo "rootfs: without libcurl4, exit 127: $(cat "$work/nocurl.err")"
  umount "$root/proc"
  echo "rootfs: every check passed in $((SECONDS - started)) s"
}

check_image() {
  local started=$SECONDS
  local image
  image="$(bash "$dist/image.sh" "$archive" "$work")"
  local limits=(--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
  local options=("${limits[@]}" --network host)
  local port
  port="$(free_port)"
  # The default command, as a user starts it: serve on 0.0.0.0:8080 inside, published on a port of the host.
  container="$(podman run -d "${limits[@]}" -p "127.0.0.1:$port:8080" "$image")"
  local up=""
  for _ in $(seq 100); do
    up="$(curl -fsS "http://127.0.0.1:$port/simctl/v1/health" 2> /dev/null || true)"
    [ -n "$up" ] && break
    sleep 0.1
  done
  [ "$up" = '{"status":"ok"}' ] || { podman logs "$container" >&2; fail "image: serve did not answer on $port"; }
  curl -fsS "http://127.0.0.1:$port/simctl/v1/state" | python3 -c 'import json, sys; assert json.load(sys.stdin)["customers"]' \
    || fail "image: /simctl/v1/state"
  podman logs "$container" 2>&1 | grep -q "warning: serving at http://0.0.0.0:8080, beyond loopback" \
    || { podman logs "$container" >&2; fail "image: no warning about the control API"; }
  podman stop -t 10 "$container" > /dev/null
  local code
  code="$(podman inspect -f '{{.State.ExitCode}}' "$container")"
  [ "$code" = 0 ] || fail "image: serve exited $code after SIGTERM"
  podman rm "$container" > /dev/null
  container=""
  echo "image: the default command served on 0.0.0.0:8080, published as 127.0.0.1:$port, answered the host, warned," \
    "and exited 0 on SIGTERM"

  podman run --rm "${options[@]}" "$image" run /Scenarios/family-refund.yaml --format jsonl > "$work/image.jsonl"
  "$host_simctl" run Scenarios/family-refund.yaml --format jsonl > "$work/host.jsonl"
  cmp -s "$work/image.jsonl" "$work/host.jsonl" || fail "image: run --format jsonl differs from the host's"
  echo "image: run /Scenarios/family-refund.yaml --format jsonl byte-identical to the host's"

  python3 Tests/Check/backend.py --bug fail-ends-access > "$work/backend" &
  pids+=("$!")
  local backend_port
  backend_port="$(first_line "$work/backend" | sed -n 's/^listening on \([0-9]*\).*/\1/p')"
  local status=0
  podman run --rm "${options[@]}" -v "$PWD/Tests/Check/header.yaml:/header.yaml:ro" "$image" check /header.yaml \
    --deliver "http://127.0.0.1:$backend_port/" \
    --entitlements "http://127.0.0.1:$backend_port/entitlements/{originalTransactionId}" --cases 50 --out /tmp \
    > "$work/check.txt" 2>&1 || status=$?
  { [ "$status" = 1 ] && grep -q "^check: case [0-9]* diverges" "$work/check.txt"; } \
    || { cat "$work/check.txt" >&2; fail "image: check against --bug fail-ends-access: exit $status, expected 1"; }
  echo "image: check found the reference backend's fail-ends-access bug: $(head -1 "$work/check.txt")"
  echo "image: every check passed in $((SECONDS - started)) s"
}

case "$what" in
  rootfs) check_rootfs ;;
  image) check_image ;;
  all) check_rootfs; check_image ;;
  *) fail "unknown part '$what' (rootfs, image or all)" ;;
esac

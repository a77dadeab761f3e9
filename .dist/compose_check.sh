#!/usr/bin/env bash
# Runs docs/recipes.md's docker compose recipe, as written there, under podman-compose (docs/recipes.md):
#   bash .dist/compose_check.sh ARCHIVE.tar.gz      (run from the package root, as root)
# The recipe's `backend: build: .` is your backend; here it is Tests/Dist/verifying_backend.py in an image of its own
# (a minimal Debian root filesystem with python3 and python3-cryptography), which verifies every notification's
# signature and chain up to simctl's root, as exported by the recipe's `certs` service into the shared volume. The host
# ports are moved to free ones; nothing else of the recipe changes. The check moves the clock through the published
# port and then requires that the backend verified every notification simctl delivered and rejected none.
set -euo pipefail
archive="${1:?usage: compose_check.sh ARCHIVE.tar.gz}"
archive="$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")"
dist="$(cd "$(dirname "$0")" && pwd)"
cd "$dist/.."
# podman-compose, and CNI's dnsname plugin so that services find each other by name (`backend`, `simctl`) on the
# compose network, as under Docker.
packages=(podman-compose golang-github-containernetworking-plugin-dnsname)
if ! dpkg -s "${packages[@]}" > /dev/null 2>&1; then
  echo "compose: installing ${packages[*]}" >&2
  apt-get install -y --no-install-recommends "${packages[@]}" > /tmp/apt-compose.log 2>&1 \
    || { apt-get update > /tmp/apt-compose.log 2>&1 \
      && apt-get install -y --no-install-recommends "${packages[@]}" >> /tmp/apt-compose.log 2>&1; } \
    || { cat /tmp/apt-compose.log >&2; exit 1; }
fi
work="$(mktemp -d)"
project="simctlcompose$$"
cleanup() {
  local status=$?
  set +e
  (cd "$work" && podman-compose -p "$project" down -v > /dev/null 2>&1)
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
fail() { echo "compose: $*" >&2; exit 1; }
started=$SECONDS
# Podman's default limits fail on this machine class (runc cannot raise them): the containers podman-compose starts
# take explicit ones, through a containers.conf of this check's own rather than a change to the recipe or the machine.
printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n[engine]\nruntime = "runc"\n' \
  > "$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"

image="$(bash "$dist/image.sh" "$archive" "$work")"
version="${image##*:}"
# The backend's image.
rootfs="$(bash "$dist/rootfs.sh" "" python3,python3-cryptography)"
mkdir "$work/backend"
ln "$rootfs" "$work/backend/rootfs.tar" 2> /dev/null || cp "$rootfs" "$work/backend/rootfs.tar"
cp Tests/Dist/verifying_backend.py "$work/backend/"
buildah build --isolation chroot --layers=false -f Tests/Dist/backend.Containerfile -t localhost/simctl-compose-backend \
  "$work/backend" > "$work/backend-build.log" 2>&1 || { tail -20 "$work/backend-build.log" >&2; fail "backend image"; }

# The recipe, from docs/recipes.md: the first yml block after "## docker compose" (yml, not yaml: docs' yaml blocks are
# scenarios, which DocExamplesTests runs).
awk '/^## docker compose/{on=1} on && /^```yml$/{block=1; next} block && /^```$/{exit} block{print}' docs/recipes.md \
  > "$work/recipe.yaml"
grep -q "image: simctl-appstore:$version" "$work/recipe.yaml" || fail "the recipe does not name simctl-appstore:$version"
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
simctl_port="$(port)"
backend_port="$(port)"
sed -e "s#build: \.#image: localhost/simctl-compose-backend#" -e "s#image: simctl-appstore:#image: localhost/simctl-appstore:#" \
  -e "s#127.0.0.1:8080:8080#127.0.0.1:$simctl_port:8080#" -e "s#127.0.0.1:8000:8000#127.0.0.1:$backend_port:8000#" \
  "$work/recipe.yaml" > "$work/docker-compose.yaml"
mkdir "$work/scenarios"
# A family's billing trouble and recovery, with the recipe's bundle id (com.example.app) for the app's.
sed 's/com\.example\.nightsky/com.example.app/g' Scenarios/family-billing-grace-recovery.yaml \
  > "$work/scenarios/subscriptions.yaml"
grep -q "APP_STORE_BUNDLE_ID: com.example.app" "$work/recipe.yaml" || fail "the recipe's backend is not com.example.app"

(cd "$work" && podman-compose -p "$project" up -d > "$work/up.log" 2>&1) || { cat "$work/up.log" >&2; fail "up"; }
up=""
for _ in $(seq 150); do
  up="$(curl -fsS "http://127.0.0.1:$simctl_port/simctl/v1/health" 2> /dev/null || true)"
  [ -n "$up" ] && break
  sleep 0.2
done
[ "$up" = '{"status":"ok"}' ] || { (cd "$work" && podman-compose -p "$project" logs) >&2; fail "simctl did not answer"; }
curl -fsS -X POST "http://127.0.0.1:$simctl_port/simctl/v1/advance" -d '{"by": "P3M"}' > "$work/advance.json" \
  || fail "advance"
curl -fsS "http://127.0.0.1:$simctl_port/simctl/v1/deliveries" > "$work/deliveries.json"
curl -fsS "http://127.0.0.1:$backend_port/received" > "$work/received.json"
if ! python3 - "$work/deliveries.json" "$work/received.json" << 'PY'
import json, sys
deliveries = json.load(open(sys.argv[1]))
received = json.load(open(sys.argv[2]))
attempts = deliveries.get("attempts", [])
succeeded = [a for a in attempts if a.get("sendAttemptResult") == "SUCCESS"]
if received["rejected"]:
    sys.exit(f"compose: the backend rejected {len(received['rejected'])}: {received['rejected'][:3]}")
if not received["verified"] or len(received["verified"]) != len(succeeded):
    sys.exit(f"compose: {len(received['verified'])} verified, {len(succeeded)} successful deliveries")
kinds = sorted({(v["notificationType"], v["subtype"]) for v in received["verified"]}, key=str)
print(f"compose: the backend verified all {len(succeeded)} notifications simctl delivered: {kinds}")
PY
then
  (cd "$work" && podman-compose -p "$project" logs 2>&1 | tail -40) >&2
  fail "the backend did not verify every notification delivered"
fi
echo "compose: docs/recipes.md's recipe ran under podman-compose in $((SECONDS - started)) s"

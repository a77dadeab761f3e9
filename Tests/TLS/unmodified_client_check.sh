#!/usr/bin/env bash
# Issue 50: Apple's Python client, unmodified, in Environment.LOCAL_TESTING, reaches `simctl serve` through a TLS
# terminator from the distribution (stunnel4, installed here) with the certificate of `simctl certs tls`: the
# recipe of docs/server.md, "Unmodified clients over TLS". The host name `local-testing-base-url` resolves through a
# hosts file bind-mounted over /etc/hosts inside a private mount namespace (`unshare -m`), which also has a network
# namespace of its own (`-n`: its own loopback, so port 443 and the hosts entry touch nothing else on the machine).
# The machine's /etc/hosts is never edited. Needs root (unshare, apt-get).
# Usage: Tests/TLS/unmodified_client_check.sh [SIMCTL]   (default .build/debug/simctl)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
simctl="$(cd "$(dirname "${1:-$root/.build/debug/simctl}")" && pwd)/$(basename "${1:-$root/.build/debug/simctl}")"
if ! command -v stunnel4 > /dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends stunnel4 iproute2 > /dev/null
fi
command -v ip > /dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 > /dev/null; }
bash "$root/Tests/Conformance/setup.sh"
python="$root/Tests/Conformance/.venv/bin/python"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$simctl" certs tls "$work/tls" > /dev/null
# The certificate as OpenSSL reads it: issued by the CA, for the three default names.
if command -v openssl > /dev/null; then
  openssl x509 -inform der -in "$work/tls/server.der" -out "$work/leaf.pem"
  for name in local-testing-base-url api.storekit.apple.com api.storekit-sandbox.apple.com; do
    openssl verify -x509_strict -purpose sslserver -verify_hostname "$name" -CAfile "$work/tls/ca.pem" \
      "$work/leaf.pem" > /dev/null
  done
fi
# stunnel's configuration is docs/recipes.md's `ini` block, as written there, with DIR replaced by the folder.
awk '/^## Apple.s clients, unmodified, over TLS/{on=1} on && /^```ini$/{block=1; next} block && /^```$/{exit} block{print}' \
  "$root/docs/recipes.md" | sed "s|DIR/|$work/tls/|" > "$work/stunnel.conf"
grep -q "^accept = 127.0.0.1:443$" "$work/stunnel.conf" || { echo "no stunnel block in docs/recipes.md" >&2; exit 1; }
cat > "$work/hosts" <<HOSTS
127.0.0.1 localhost
127.0.0.1 local-testing-base-url api.storekit.apple.com api.storekit-sandbox.apple.com
HOSTS
cat > "$work/inside.sh" <<INSIDE
set -euo pipefail
ip link set lo up
mount --bind "$work/hosts" /etc/hosts
"$simctl" serve "$root/Scenarios/family-billing-grace-recovery.yaml" --port 8080 --log "$work/serve.log" \
  > "$work/serve.out" 2>&1 &
serve=\$!
stunnel4 "$work/stunnel.conf" > "$work/stunnel.log" 2>&1 &
tunnel=\$!
for _ in \$(seq 1 100); do
  if "$python" -c 'import socket,sys; [socket.create_connection(("127.0.0.1", p), 1).close() for p in (8080, 443)]' \
    2> /dev/null; then break; fi
  sleep 0.1
done
status=0
REQUESTS_CA_BUNDLE="$work/tls/ca.pem" "$python" "$here/unmodified_client.py" 8080 || status=\$?
kill -TERM \$tunnel \$serve
wait \$serve || status=\$?
wait \$tunnel || true
exit \$status
INSIDE
started=$(date +%s)
if ! unshare -m -n --propagation private bash "$work/inside.sh"; then
  echo "--- serve" >&2; cat "$work/serve.out" "$work/serve.log" >&2 || true
  echo "--- stunnel" >&2; cat "$work/stunnel.log" >&2 || true
  exit 1
fi
echo "tls: Apple's client (LOCAL_TESTING, unmodified) through stunnel and simctl certs tls in $(( $(date +%s) - started )) s"

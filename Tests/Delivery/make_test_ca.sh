#!/usr/bin/env bash
# A throwaway CA and a server certificate for 127.0.0.1 and localhost, for the HTTPS checks (Tests/Delivery/
# https_check.sh, .dist/check.sh):
#   bash Tests/Delivery/make_test_ca.sh DIR [NAME]
# writes DIR/ca.pem, DIR/ca.key, DIR/server.pem and DIR/server.key with openssl (valid one day; NAME goes into the
# CA's common name).
set -euo pipefail
dir="${1:?usage: make_test_ca.sh DIR [NAME]}"
name="${2:-simctl test CA $$}"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$name" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout "$dir/ca.key" -out "$dir/ca.pem" 2> /dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" \
  2> /dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
  > "$dir/server.ext"
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 1 \
  -extfile "$dir/server.ext" -out "$dir/server.pem" 2> /dev/null

#!/usr/bin/env bash
# Makes throwaway TLS material for the tests and examples (never use it for anything else).
#
# Usage: scripts/make-certs.sh DIR
#
# Writes into DIR (created when missing):
#   ca.pem, ca-key.pem                  a test certificate authority
#   server.pem, server-key.pem          CN=localhost, SAN DNS:localhost, IP:127.0.0.1, IP:::1, signed by the CA
#   server-key-enc.pem                  server-key.pem encrypted with the passphrase "secret"
#   client.pem, client-key.pem          CN=eventide-test-client, client auth, signed by the CA
#   selfsigned.pem, selfsigned-key.pem  self-signed, CN=localhost, SAN DNS:localhost, IP:127.0.0.1, IP:::1
#                                       (server and client auth)
#   other.pem, other-key.pem            CN/SAN other.example, signed by the CA
#   intermediate.pem, intermediate-key.pem  an intermediate CA signed by the CA
#   chained.pem, chained-key.pem        localhost leaf signed by the intermediate; chained.pem holds leaf + intermediate
#   expired.pem, expired-key.pem        self-signed localhost certificate that has already expired
#
# Idempotent: when every file already exists nothing is regenerated. Quiet unless
# something fails (then the OpenSSL output is printed). Works with OpenSSL 3 (and 1.1.1).
set -euo pipefail

if [ "$#" -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi

dir=$1
mkdir -p "$dir"
cd "$dir"

outputs=(ca.pem ca-key.pem server.pem server-key.pem server-key-enc.pem client.pem client-key.pem
  selfsigned.pem selfsigned-key.pem other.pem other-key.pem intermediate.pem intermediate-key.pem
  chained.pem chained-key.pem expired.pem expired-key.pem)

complete=1
for f in "${outputs[@]}"; do
  [ -s "$f" ] || complete=0
done
if [ "$complete" -eq 1 ]; then
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/eventide-certs.XXXXXX")
log="$work/openssl.log"
trap 'rm -rf "$work"' EXIT

run() {
  if ! "$@" >>"$log" 2>&1; then
    echo "make-certs: command failed: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}

# EC P-256 keys: quick to generate, supported everywhere.
newkey() { run openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/$1"; }

ext() { # name, contents
  printf '%s\n' "$2" >"$work/$1.ext"
}

sign() { # csr-key subject ext issuer-cert issuer-key out days
  local key=$1 subj=$2 extname=$3 issuer=$4 issuerkey=$5 out=$6 days=${7:-3650}
  run openssl req -new -key "$work/$key" -subj "$subj" -out "$work/$out.csr"
  run openssl x509 -req -in "$work/$out.csr" -CA "$work/$issuer" -CAkey "$work/$issuerkey" \
    -CAcreateserial -days "$days" -sha256 -extfile "$work/$extname.ext" -out "$work/$out"
}

selfsign() { # key subject ext out days
  local key=$1 subj=$2 extname=$3 out=$4 days=${5:-3650}
  run openssl req -new -key "$work/$key" -subj "$subj" -out "$work/$out.csr"
  run openssl x509 -req -in "$work/$out.csr" -signkey "$work/$key" -days "$days" -sha256 \
    -extfile "$work/$extname.ext" -out "$work/$out"
}

ext ca 'basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash'
ext intermediate 'basicConstraints=critical,CA:TRUE,pathlen:0
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid'
ext server 'basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'
ext selfsigned 'basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'
ext client 'basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'
ext other 'basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:other.example'

# Certificate authority.
newkey ca-key.pem
selfsign ca-key.pem '/O=eventide tests/CN=Eventide Test CA' ca ca.pem

# Server, client and other-host certificates signed by the CA.
newkey server-key.pem
sign server-key.pem '/O=eventide tests/CN=localhost' server ca.pem ca-key.pem server.pem
run openssl pkey -in "$work/server-key.pem" -aes256 -passout pass:secret -out "$work/server-key-enc.pem"

newkey client-key.pem
sign client-key.pem '/O=eventide tests/CN=eventide-test-client' client ca.pem ca-key.pem client.pem

newkey other-key.pem
sign other-key.pem '/O=eventide tests/CN=other.example' other ca.pem ca-key.pem other.pem

# Intermediate CA and a localhost leaf under it (chained.pem = leaf + intermediate).
newkey intermediate-key.pem
sign intermediate-key.pem '/O=eventide tests/CN=Eventide Test Intermediate' intermediate ca.pem ca-key.pem intermediate.pem
newkey chained-key.pem
sign chained-key.pem '/O=eventide tests/CN=localhost' server intermediate.pem intermediate-key.pem chained-leaf.pem
cat "$work/chained-leaf.pem" "$work/intermediate.pem" >"$work/chained.pem"

# Self-signed server certificates: a valid one and one that expired yesterday.
newkey selfsigned-key.pem
selfsign selfsigned-key.pem '/O=eventide tests/CN=localhost' selfsigned selfsigned.pem
newkey expired-key.pem
selfsign expired-key.pem '/O=eventide tests/CN=localhost' selfsigned expired.pem -1

# Publish: keys readable by the owner only, then move into place.
for f in "${outputs[@]}"; do
  case "$f" in
    *key*) chmod 600 "$work/$f" ;;
    *) chmod 644 "$work/$f" ;;
  esac
  mv -f "$work/$f" "./$f"
done

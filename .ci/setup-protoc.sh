#!/usr/bin/env bash
# Installs the tools that check the generated Perfetto code and decode our
# output with the .proto subset: Debian's protoc (protobuf-compiler) and the
# pinned protoc-gen-go. Idempotent: each tool is installed only when missing
# or at another version. protoc-gen-go goes to $(go env GOPATH)/bin, where
# proto's freshness test also looks for it.
set -euo pipefail

PROTOC_GEN_GO_VERSION=v1.36.12 # keep equal to google.golang.org/protobuf in go.mod

if ! command -v protoc >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq protobuf-compiler >/dev/null
fi

gen="$(go env GOPATH)/bin/protoc-gen-go"
if ! "$gen" --version 2>/dev/null | grep -qx "protoc-gen-go ${PROTOC_GEN_GO_VERSION}"; then
	go install "google.golang.org/protobuf/cmd/protoc-gen-go@${PROTOC_GEN_GO_VERSION}"
fi

echo "setup-protoc: $(protoc --version), $("$gen" --version)"

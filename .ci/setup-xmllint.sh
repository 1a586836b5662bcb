#!/usr/bin/env bash
# Installs xmllint (Debian's libxml2-utils), with which e2e's
# TestGateJUnitSchema validates `atrace2 diff --format junit` against
# e2e/testdata/jenkins-junit.xsd; .ci/run sets ATRACE2_XMLLINT=require so
# that its absence fails the test. Idempotent: apt-get runs only when
# xmllint is missing.
set -euo pipefail

if ! command -v xmllint >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq libxml2-utils >/dev/null
fi

echo "setup-xmllint: $(xmllint --version 2>&1 | head -n 1)"

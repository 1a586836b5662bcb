#!/usr/bin/env bash
# Installs what the browser test (e2e/, TestSpeedscopeInBrowser) needs:
# Debian's chromium, and the npm packages pinned in e2e/package-lock.json:
# speedscope's built web app, ajv for its JSON schema, and playwright-core,
# which drives /usr/bin/chromium and never downloads a browser of its own.
# Idempotent: apt-get runs only when chromium or node is missing; npm ci
# reinstalls e2e/node_modules exactly as locked.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v node >/dev/null 2>&1 || missing+=(nodejs npm)
if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

(cd e2e && npm ci --no-audit --no-fund --loglevel=error)

# The Debian wrapper prints a harmless "[: …: unexpected operator" line.
echo "setup-browser: $(chromium --version 2>/dev/null | tail -n 1), node $(node --version)," \
	"speedscope $(node -p 'require("./e2e/node_modules/speedscope/package.json").version')," \
	"playwright-core $(node -p 'require("./e2e/node_modules/playwright-core/package.json").version')"

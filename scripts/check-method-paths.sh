#!/usr/bin/env bash
# No method path of the contract outside the typed clients (docs/peers.md): every call of
# an RPC goes through common/<service>_client.h, whose .c file is the one place that
# names the method's path. The paths are read from proto/ (package + service + rpc), so a
# new method is covered the day it is added; a path no contract has (a test of an
# unknown method) is not one of them.
#
#   scripts/check-method-paths.sh     exit 1 and list the offending lines, else exit 0
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

paths=$(mktemp)
trap 'rm -f "$paths"' EXIT
for f in $(find proto -name '*.proto' | sort); do
  awk '
    /^package / { pkg = $2; sub(/;$/, "", pkg) }
    /^service / { svc = $2 }
    /^}/ { svc = "" }
    svc != "" && $1 == "rpc" { m = $2; sub(/\(.*/, "", m); printf "\"/%s.%s/%s\"\n", pkg, svc, m }
  ' "$f"
done > "$paths"
[ -s "$paths" ] || { echo "check-method-paths: no rpc found under proto/" >&2; exit 2; }

found=$(grep -rnF -f "$paths" --include='*.c' --include='*.h' --include='*.cpp' \
          common services cli bench tests 2>/dev/null | grep -v '^common/[a-z_]*_client\.c:' || true)
if [ -n "$found" ]; then
  echo "method paths outside common/*_client.c (call the typed client instead):"
  echo "$found"
  exit 1
fi
echo "check-method-paths: $(wc -l < "$paths") methods, none named outside common/*_client.c"

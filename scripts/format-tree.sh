#!/usr/bin/env bash
# Reformat, in place, every source file that scripts/check-style.sh checks
# (scripts/style-files.txt), with the repository's .clang-format. No change in behaviour:
# whitespace, line breaks and include order only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v clang-format >/dev/null || { echo "format-tree: clang-format is missing (scripts/install-deps.sh)" >&2; exit 2; }
cd "$here/.."
"$here/check-style.sh" --list | tr '\n' '\0' | xargs -0 -n 16 clang-format -i
echo "format-tree: $("$here/check-style.sh" --list | wc -l) files formatted"

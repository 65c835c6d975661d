#!/usr/bin/env bash
# The style check of `make test` (ctest -L style): clang-format with the repository's
# .clang-format over the sources listed in scripts/style-files.txt (any difference fails),
# then clang-tidy with .clang-tidy over those of them the build compiles, through its
# compile_commands.json (headers of the same directories included).
#
#   scripts/check-style.sh [BUILD_DIR]   check (BUILD_DIR: default ./build)
#   scripts/check-style.sh --list        print the files checked, one per line
#
# Environment: STYLE_JOBS (parallel clang-tidy processes; default: the number of CPUs).
# A tree that fails the clang-format half is fixed by scripts/format-tree.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

# The files of style-files.txt that exist, relative to the repository, sorted.
list_files() {
  (
    cd "$repo"
    shopt -s globstar nullglob
    declare -A keep=()
    while IFS= read -r line || [ -n "$line" ]; do
      line=${line%%#*}
      line=${line//[[:space:]]/}
      [ -z "$line" ] && continue
      if [ "${line:0:1}" = "!" ]; then
        for f in ${line:1}; do unset "keep[$f]"; done
      else
        for f in $line; do [ -f "$f" ] && keep[$f]=1; done
      fi
    done < "$here/style-files.txt"
    [ ${#keep[@]} -gt 0 ] && printf '%s\n' "${!keep[@]}" | LC_ALL=C sort
  )
}

if [ "${1:-}" = "--list" ]; then
  list_files
  exit 0
fi

build=$(cd "${1:-$repo/build}" 2>/dev/null && pwd) || { echo "check-style: no build directory ${1:-$repo/build}" >&2; exit 2; }
jobs=${STYLE_JOBS:-$(nproc 2>/dev/null || echo 2)}
for tool in clang-format clang-tidy; do
  command -v "$tool" >/dev/null || { echo "check-style: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }
done
db="$build/compile_commands.json"
[ -f "$db" ] || { echo "check-style: $db is missing (configure with CMake: CMakeLists.txt exports it)" >&2; exit 2; }

mapfile -t files < <(list_files)
[ ${#files[@]} -gt 0 ] || { echo "check-style: scripts/style-files.txt matches no file" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
t0=$(date +%s)

# ---- clang-format: each file exactly as .clang-format would write it -------------------
cd "$repo"
printf '%s\0' "${files[@]}" |
  xargs -0 -P "$jobs" -n 16 sh -c 'for f; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done' sh \
  > "$work/unformatted"
t1=$(date +%s)
if [ -s "$work/unformatted" ]; then
  n=$(wc -l < "$work/unformatted")
  echo "clang-format: $n of ${#files[@]} files differ from .clang-format (scripts/format-tree.sh fixes them):"
  LC_ALL=C sort "$work/unformatted" | sed 's/^/  /'
  first=$(LC_ALL=C sort "$work/unformatted" | head -n 1)
  echo "the first differences in $first:"
  { clang-format --dry-run "$first" 2>&1 || true; } | head -n 12 | sed 's/^/  /' || true
  status=1
else
  echo "clang-format: ${#files[@]} files ok ($((t1 - t0)) s)"
fi

# ---- clang-tidy: the checks of .clang-tidy over what the build compiles ------------------
# Translation units: the listed .c/.cpp files the compilation database knows (fuzz
# targets are compiled only with EG_FUZZ). Headers: those under the listed directories.
printf '%s\n' "${files[@]}" > "$work/files"
/usr/bin/python3 - "$repo" "$db" "$work/files" "$work/units" "$work/header_filter" <<'PY'
import json, re, sys
repo, db, listed, units_out, filter_out = sys.argv[1:]
files = [l.strip() for l in open(listed) if l.strip()]
known = {e["file"] if e["file"].startswith("/") else e["directory"] + "/" + e["file"] for e in json.load(open(db))}
units = [f for f in files if f.endswith((".c", ".cpp")) and repo + "/" + f in known]
open(units_out, "w").write("".join(u + "\n" for u in units))
dirs = sorted({f.split("/")[0] for f in files})
open(filter_out, "w").write("^" + re.escape(repo + "/") + "(" + "|".join(map(re.escape, dirs)) + ")/")
PY
n_units=$(wc -l < "$work/units")
tr '\n' '\0' < "$work/units" |
  xargs -0 -P "$jobs" -n 4 clang-tidy -p "$build" --quiet --header-filter="$(cat "$work/header_filter")" \
  > "$work/tidy.out" 2> "$work/tidy.err" || true
t2=$(date +%s)
if grep -qE '(warning|error):' "$work/tidy.out" "$work/tidy.err"; then
  echo "clang-tidy: findings (checks in .clang-tidy):"
  cat "$work/tidy.out"
  grep -E '(warning|error):' "$work/tidy.err" | grep -v 'warnings generated' || true
  status=1
else
  echo "clang-tidy: $n_units translation units ok ($((t2 - t1)) s, $jobs jobs)"
fi
echo "style: $((t2 - t0)) s"
exit $status

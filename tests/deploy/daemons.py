"""daemons.py — start Engram daemons of build/ for the Python tests (deploy, clients) and wait for their ports."""
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORDER = ("graphd", "vectord", "ingestd", "recalld")  # ingestd and recalld call the first two


def free_port():
    """A loopback port nothing listens on (at the time of the call)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


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


def auth_flags(token_lines, service_token):
    """The daemons' flags for the tokens of token_lines (a list) and the service token."""
    return ["--auth-tokens", ";".join(token_lines), "--service-token", service_token]


def start_all(build, tmp, extra, env=None, wait_s=20, names=ORDER, tag=""):
    """The four daemons on free loopback ports, data and logs under tmp, extra flags given to
    each, ingestd and recalld pointed at graphd and vectord; env defaults to the models of
    the repository's var/models with the GloVe embedder. Returns {name: (process, grpc
    port, metrics port)}; exits the test with the daemon's log when one does not come up.
    graphd reads the repository's derivation rules. names: which daemons (in ORDER; ingestd
    and recalld need graphd and vectord among them); tag: appended to each one's data
    directory and log name, so that a second set can run beside a first."""
    if env is None:
        env = dict(os.environ, ENGRAM_MODELS_DIR=os.path.join(ROOT, "var/models"), ENGRAM_EMBEDDER="glove")
    env.setdefault("ENGRAM_DERIVE_RULES", os.path.join(ROOT, "services/graphd/derive_rules.txt"))
    running = {}
    for name in names:
        args = ["--grpc-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
                "--data-dir", os.path.join(tmp, name + tag)]
        args += extra
        if name in ("ingestd", "recalld"):
            args += ["--graphd-addr", "127.0.0.1:%d" % running["graphd"][1],
                     "--vectord-addr", "127.0.0.1:%d" % running["vectord"][1]]
        p, ports = spawn(os.path.join(build, name), args, env, tmp, name + tag, wait_s)
        if ports is None:
            stop_all(running)
            sys.exit("%s did not start:\n%s" % (name, log_tail(tmp, name + tag)))
        running[name] = (p, ports["grpc"], ports["metrics"])
    return running


def stop_all(running):
    """SIGTERM each daemon and wait for it (SIGKILL after 20 s)."""
    for p, _, _ in running.values():
        if p.poll() is None:
            p.terminate()
    for p, _, _ in running.values():
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def finish(tmp, failures):
    """The end of a test: 1 with the failures counted and tmp kept for its logs, else 0 with
    tmp removed."""
    if failures:
        print("FAILED: %d check(s); logs kept in %s" % (len(failures), tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print("all passed")
    return 0

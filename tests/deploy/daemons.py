"""daemons.py — start one Engram daemon of build/ for the deploy tests and wait for its ports."""
import os
import subprocess
import sys
import time


def spawn(binary, args, env, tmp, name, wait_s, keys=("grpc", "metrics")):
    """Start binary with args (plus --ports-file) and env, its log in <tmp>/<name>.log; wait up
    to wait_s for the ports file to name the ports in keys (a daemon's gRPC and metrics ports).
    Returns (process, ports dict); the process is killed and the dict is None when it did not
    come up."""
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


ORDER = ("graphd", "vectord", "ingestd", "recalld")


def start_cluster(build, tmp, extra_args, env, wait_s=20):
    """The four daemons of build/ on free loopback ports, data and logs under tmp: graphd and
    vectord first, then ingestd and recalld pointed at them; extra_args (auth …) go to each.
    Returns {name: (process, grpc port, metrics port)}; exits with the log of one that did
    not come up (after stopping the others)."""
    running = {}
    for name in ORDER:
        args = ["--grpc-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
                "--data-dir", os.path.join(tmp, name)] + list(extra_args)
        if name in ("ingestd", "recalld"):
            args += ["--graphd-addr", "127.0.0.1:%d" % running["graphd"][1],
                     "--vectord-addr", "127.0.0.1:%d" % running["vectord"][1]]
        p, ports = spawn(os.path.join(build, name), args, env, tmp, name, wait_s)
        if ports is None:
            stop_cluster(running)
            sys.exit("%s did not start:\n%s" % (name, log_tail(tmp, name)))
        running[name] = (p, ports["grpc"], ports["metrics"])
    return running


def stop_cluster(running):
    """SIGTERM every process of start_cluster's answer, then wait for each."""
    for p, _, _ in running.values():
        p.terminate()
    for p, _, _ in running.values():
        p.wait(timeout=30)

"""daemons.py — start Engram daemons of build/ for the Python tests (deploy, clients) and wait for their ports."""
import os
import subprocess
import sys
import time

# In start order: ingestd and recalld are pointed at graphd and vectord.
CLUSTER = ("graphd", "vectord", "ingestd", "recalld")


def spawn(binary, args, env, tmp, name, wait_s):
    """Start binary with args (plus --ports-file) and env, its log in <tmp>/<name>.log; wait up
    to wait_s for the ports file to name the gRPC and metrics ports. Returns (process, ports
    dict); the process is killed and the dict is None when it did not come up."""
    ports = os.path.join(tmp, name + ".ports")
    log = open(os.path.join(tmp, name + ".log"), "w")
    p = subprocess.Popen([binary] + args + ["--ports-file", ports], env=env, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(int(wait_s / 0.05)):
        if p.poll() is not None:
            break
        if os.path.exists(ports):
            kv = dict(line.split("=", 1) for line in open(ports).read().split())
            if "grpc" in kv and "metrics" in kv:
                return p, {k: int(v) for k, v in kv.items() if v.isdigit()}
        time.sleep(0.05)
    p.kill()
    return p, None


def log_tail(tmp, name, n=2000):
    return open(os.path.join(tmp, name + ".log")).read()[-n:]


def start_cluster(build, tmp, args, env, wait_s=20):
    """Start the four daemons of build/ on free loopback ports, data and logs in tmp, each
    with args (auth, embedder …) and env; ingestd and recalld call the graphd and vectord
    started here. Returns {name: (process, grpc port, metrics port)}. When one does not come
    up, stops those started and exits with its log."""
    running = {}
    for name in CLUSTER:
        a = ["--grpc-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
             "--data-dir", os.path.join(tmp, name)] + list(args)
        if name in ("ingestd", "recalld"):
            a += ["--graphd-addr", "127.0.0.1:%d" % running["graphd"][1],
                  "--vectord-addr", "127.0.0.1:%d" % running["vectord"][1]]
        p, ports = spawn(os.path.join(build, name), a, env, tmp, name, wait_s)
        if ports is None:
            stop_cluster(running)
            sys.exit("%s did not start:\n%s" % (name, log_tail(tmp, name)))
        running[name] = (p, ports["grpc"], ports["metrics"])
    return running


def stop_cluster(running):
    """SIGTERM to every daemon of start_cluster(), then wait for each (at most 30 s)."""
    for p, _, _ in running.values():
        p.terminate()
    for p, _, _ in running.values():
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

"""daemons.py — start one Engram daemon of build/ for the deploy tests and wait for its ports."""
import os
import subprocess
import time


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

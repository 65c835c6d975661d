#!/usr/bin/python3
"""test_run.py — `make run` (scripts/run.sh) as a user lives it, on free ports and a temp dir.

1. One instance starts and serves.
2. A second one on the same ports refuses before starting anything: exit non-zero, the
   taken ports named; the first still serves.
3. A second one on other ports but the same data directory: its graphd and vectord find
   the data locked, the script says so, stops what it started and exits non-zero.
4. Ctrl-C on the first (SIGINT to its process group, as the terminal sends it): each
   daemon gets one stop signal from the script, each is reported "stopped (exit 0)", and
   the script exits 0.
5. `make run-auth` (run.sh --auth): the daemons require tokens; the admin token printed
   reads and erases its tenant, a call without it is UNAUTHENTICATED, and the tokens file
   holds its digest, never the token.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMONS = ("ingestd", "graphd", "vectord", "recalld")
failures = []


def check(ok, what):
    print("ok  " if ok else "FAIL", what)
    if not ok:
        failures.append(what)


def port_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_range(n, avoid=()):
    """A first port p with p … p+n-1 free (and not in avoid)."""
    for _ in range(200):
        first = 20000 + int.from_bytes(os.urandom(2), "big") % 30000
        ports = range(first, first + n)
        if all(p not in avoid and port_free(p) for p in ports):
            return first
    raise RuntimeError("no free port range")


class Script:
    """scripts/run.sh in its own process group (the terminal's foreground group)."""

    def __init__(self, build, var, grpc, metrics, args=()):
        env = dict(os.environ, ENGRAM_RUN_DIR=var, ENGRAM_RUN_GRPC_PORT=str(grpc),
                   ENGRAM_RUN_METRICS_PORT=str(metrics))
        self.proc = subprocess.Popen([os.path.join(ROOT, "scripts", "run.sh"), build] + list(args), env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
        self.out = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.out.append(line)

    def text(self):
        return "".join(self.out)

    def wait_for(self, needle, timeout):
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            if needle in self.text():
                return True
            if self.proc.poll() is not None:
                self.reader.join(2)
                return needle in self.text()
            time.sleep(0.05)
        return False

    def finish(self, timeout):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            rc = self.proc.wait()
        self.reader.join(2)
        return rc


def engram(build, grpc, args, token=None):
    """`engram` against the instance whose first gRPC port is grpc: (exit status, output)."""
    addrs = []
    for i, d in enumerate(DAEMONS):
        addrs += ["--%s-addr" % d, "127.0.0.1:%d" % (grpc + i)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    if token:
        env["ENGRAM_TOKEN"] = token
    p = subprocess.run([os.path.join(build, "engram"), "--timeout-ms", "2000"] + addrs + args, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def health(build, grpc):
    return engram(build, grpc, ["health"])[0]


def test_run_auth(build, tmp):
    """run.sh --auth: tokens required, the printed admin token works, Ctrl-C stops it."""
    var = os.path.join(tmp, "var-auth")
    grpc = free_range(4)
    metrics = free_range(4, avoid=range(grpc, grpc + 4))
    run = Script(build, var, grpc, metrics, ["--auth"])
    try:
        check(run.wait_for("Ctrl-C stops all four", 15), "run-auth: it starts")
        out = run.text()
        token = ""
        for line in out.splitlines():
            if line.strip().startswith("export ENGRAM_TOKEN="):
                token = line.strip()[len("export ENGRAM_TOKEN="):]
        check(token.startswith("eg_"), "run-auth: it prints the admin token: " + out.strip())
        check(health(build, grpc) == 0, "run-auth: it serves (health needs no token)")
        rc, text = engram(build, grpc, ["relations"])
        check(rc == 1 and "UNAUTHENTICATED" in text, "run-auth: a call without a token is refused: " + text)
        rc, text = engram(build, grpc, ["relations"], token)
        check(rc == 0 and "LIVES_IN" in text, "run-auth: the admin token reads tenant default: " + text)
        rc, text = engram(build, grpc, ["--user", "someone", "erase"], token)
        check(rc == 0 and "erased user someone of tenant default" in text, "run-auth: the admin token erases: " + text)
        rc, text = engram(build, grpc, ["--tenant", "other", "relations"], token)
        check(rc == 1 and "PERMISSION_DENIED" in text, "run-auth: and only its tenant: " + text)
        tokens = open(os.path.join(var, "run", "tokens")).read()
        check(token and token not in tokens and tokens.startswith("default sha256:") and tokens.strip().endswith(" admin"),
              "run-auth: the tokens file holds the digest: " + tokens)
    finally:
        if run.proc.poll() is None:
            os.killpg(run.proc.pid, signal.SIGINT)
        rc = run.finish(20)
    check(rc == 0, "run-auth: Ctrl-C stops it cleanly (%d)" % rc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    build = os.path.abspath(ap.parse_args().build)
    tmp = tempfile.mkdtemp(prefix="engram-run-")
    var = os.path.join(tmp, "var")
    grpc = free_range(4)
    metrics = free_range(4, avoid=range(grpc, grpc + 4))
    first = Script(build, var, grpc, metrics)
    try:
        check(first.wait_for("Engram is running", 15), "the first instance starts")
        check(health(build, grpc) == 0, "the first instance serves")

        second = Script(build, var, grpc, metrics)
        rc = second.finish(10)
        out = second.text()
        check(rc != 0, "a second instance on the same ports exits non-zero (%d)" % rc)
        check("already taken" in out and str(grpc) in out and str(metrics) in out,
              "it names the taken ports: " + out.strip())

        grpc2 = free_range(4, avoid=range(grpc, grpc + 4))
        metrics2 = free_range(4, avoid=list(range(grpc, grpc + 4)) + list(range(grpc2, grpc2 + 4)))
        third = Script(build, var, grpc2, metrics2)
        rc = third.finish(15)
        out = third.text()
        check(rc != 0, "a second instance on the same data directory exits non-zero (%d)" % rc)
        check("is locked by another running instance" in out, "it says the data directory is locked: " + out.strip())
        check(all(port_free(p) for p in list(range(grpc2, grpc2 + 4)) + list(range(metrics2, metrics2 + 4))),
              "it left nothing running")
        check(health(build, grpc) == 0, "the first instance still serves")

        # The third instance's ingestd and recalld logged to the same files: read on from here.
        logs = {d: os.path.join(var, "log", d + ".log") for d in DAEMONS}
        log_from = {d: os.path.getsize(logs[d]) for d in DAEMONS}
        os.killpg(first.proc.pid, signal.SIGINT)  # the terminal's Ctrl-C
        rc = first.finish(20)
        out = first.text()
        check(rc == 0, "Ctrl-C: the script exits 0 (%d)" % rc)
        for d in DAEMONS:
            check("%s stopped (exit 0)" % d in out, "Ctrl-C: %s reported stopped (exit 0)" % d)
        for d in DAEMONS:
            with open(logs[d]) as f:
                f.seek(log_from[d])
                log = f.read()
            check(log.count('msg="signal received, shutting down"') == 1,
                  "%s received exactly one stop signal" % d)
    finally:
        if first.proc.poll() is None:
            os.killpg(first.proc.pid, signal.SIGTERM)
            first.finish(20)
    test_run_auth(build, tmp)
    if failures:
        print("output of the first instance:\n" + first.text())
        print("FAILED: %d; kept %s" % (len(failures), tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

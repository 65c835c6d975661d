#!/usr/bin/python3
"""run_tests.py — the Python client installed as a user installs it, against the real daemons.

1. A fresh venv (--system-site-packages: the distribution's grpcio, protobuf, setuptools
   and grpc_tools) gets `pip install --no-build-isolation --no-index clients/python`: the
   package builds offline and its stubs are generated from proto/; none is in the source tree.
2. The four daemons of --build start on free loopback ports in a temp dir, with a tokens
   file: a user and an admin token of tenant "acme", a user token of tenant "other"; a
   second four serve TLS (a throw-away CA and a certificate for 127.0.0.1 made by openssl).
3. The venv's Python runs the unittest modules beside this file (test_*.py) against them;
   they read the addresses, tokens and CA from ENGRAM_TEST_* variables.
Logs and the venv are kept when something fails.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(PACKAGE))
sys.path.insert(0, os.path.join(ROOT, "tests", "deploy"))
import daemons  # noqa: E402

TOKENS = {"user": ("acme", "user"), "admin": ("acme", "admin"), "other": ("other", "user")}


def run(cmd, **kw):
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw).returncode


def install(tmp):
    """The venv's python with the package installed, or None."""
    venv = os.path.join(tmp, "venv")
    if run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv]):
        return None
    py = os.path.join(venv, "bin", "python")
    # Only the repository: no index, no extra links from the environment.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    if run([py, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index", PACKAGE], env=env):
        return None
    probe = "import engram, engram.v1.recall_pb2_grpc as s; print(engram.__file__, s.__file__)"
    where = subprocess.run([py, "-c", probe], cwd=tmp, capture_output=True, text=True)
    print("installed:", where.stdout.strip() or where.stderr.strip())
    if where.returncode or not all(p.startswith(venv) for p in where.stdout.split()):
        print("FAIL: the package and its generated stubs must be imported from the venv")
        return None
    return py


def make_certificates(tmp):
    """ca.pem, server.pem/server.key (127.0.0.1, signed by ca.pem) and rogue.pem (another CA)."""
    d = os.path.join(tmp, "certs")
    os.makedirs(d)
    keygen = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]
    with open(os.path.join(d, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for cmd in (["req", "-x509"] + keygen + ["-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=engram-test-ca"],
                ["req"] + keygen[:-2] + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"],
                ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", "server.pem", "-days", "2", "-extfile", "san.ext"],
                ["req", "-x509"] + keygen + ["-keyout", "rogue.key", "-out", "rogue.pem", "-subj", "/CN=rogue"]):
        subprocess.run(["openssl"] + cmd, cwd=d, check=True, capture_output=True)
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("pattern", nargs="?", default="test_*.py", help="which test modules")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    tmp = tempfile.mkdtemp(prefix="engram-pyclient-")
    py = install(tmp)
    if not py:
        print("kept", tmp)
        return 1
    secrets = {name: "eg_" + hashlib.sha256(os.urandom(32)).hexdigest() for name in TOKENS}
    tokens_file = os.path.join(tmp, "tokens")
    with open(tokens_file, "w") as f:
        for name, (tenant, role) in TOKENS.items():
            f.write("%s sha256:%s %s\n" % (tenant, hashlib.sha256(secrets[name].encode()).hexdigest(), role))
    args = ["--auth-tokens-file", tokens_file, "--service-token", "eg_" + os.urandom(16).hex()]
    certs = make_certificates(tmp)
    tls = ["--tls-cert-file", os.path.join(certs, "server.pem"), "--tls-key-file", os.path.join(certs, "server.key"),
           "--tls-ca-file", os.path.join(certs, "ca.pem")]
    env = dict(os.environ, ENGRAM_MODELS_DIR=os.path.join(ROOT, "var", "models"))
    clusters = {}
    rc = 1
    try:
        for name, extra in (("plain", []), ("tls", tls)):
            os.makedirs(os.path.join(tmp, name))
            clusters[name] = daemons.start_all(build, os.path.join(tmp, name), args + extra, env)
        test_env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
        for name, running in clusters.items():
            key = "ENGRAM_TEST_%sADDRS" % ("TLS_" if name == "tls" else "")
            test_env[key] = json.dumps({d: "127.0.0.1:%d" % running[d][1] for d in running})
        test_env["ENGRAM_TEST_TOKENS"] = json.dumps(secrets)
        test_env["ENGRAM_TEST_CERTS"] = certs
        rc = run([py, "-m", "unittest", "discover", "-v", "-s", HERE, "-p", a.pattern], cwd=tmp, env=test_env)
    finally:
        for running in clusters.values():
            daemons.stop_all(running)
    if rc:
        for name in clusters:
            for d in daemons.ORDER:
                print("---- %s %s log ----\n%s" % (name, d, daemons.log_tail(os.path.join(tmp, name), d, 3000)))
        print("FAILED; kept", tmp)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

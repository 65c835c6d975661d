#!/usr/bin/python3
"""test_mcp.py — engram-mcp driven by the official MCP TypeScript SDK, against the real daemons.

Starts the four daemons on loopback with bearer tokens (tests/deploy/daemons.py), then
engram-mcp over streamable HTTP, and runs tests/mcp/mcp_client.mjs with node: it launches
engram-mcp over stdio itself, as an MCP client would, and talks to the HTTP one. Skipped
(exit 77) only when node is missing; the SDK is installed by scripts/install-test-tools.sh.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests/deploy"))
import daemons  # noqa: E402

SKIP = 77
TENANT = "acme"
TOKENS = {"user": "mcp-test-user-token", "admin": "mcp-test-admin-token", "other": "mcp-test-other-tenant-token"}


def token_lines():
    digest = lambda t: "sha256:" + hashlib.sha256(t.encode()).hexdigest()  # noqa: E731
    return ";".join(["%s %s user" % (TENANT, digest(TOKENS["user"])), "%s %s admin" % (TENANT, digest(TOKENS["admin"])),
                     "other %s user" % digest(TOKENS["other"])])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    opts = ap.parse_args()
    node = shutil.which("node")
    if not node:
        print("SKIP: node is missing (Debian package nodejs; scripts/install-deps.sh installs npm with it)")
        return SKIP
    tools = os.path.join(ROOT, "var/tools/mcp")
    if not os.path.isdir(os.path.join(tools, "node_modules/@modelcontextprotocol/sdk")):
        sys.exit("the MCP SDK is not installed in %s: run scripts/install-test-tools.sh" % tools)
    tmp = tempfile.mkdtemp(prefix="engram-mcp-")
    env = dict(os.environ, ENGRAM_MODELS_DIR=os.path.join(ROOT, "var/models"), ENGRAM_EMBEDDER="glove")
    for k in ("ENGRAM_TOKEN", "ENGRAM_TENANT", "ENGRAM_USER", "ENGRAM_AGENT", "ENGRAM_ADMIN_TOKEN"):
        env.pop(k, None)
    lines = token_lines()
    running = daemons.start_all(opts.build, tmp, ["--auth-tokens", lines, "--service-token", "mcp-test-service"], env)
    addrs = {name: "127.0.0.1:%d" % running[name][1] for name in running}
    daemon_args = ["--ingestd-addr", addrs["ingestd"], "--graphd-addr", addrs["graphd"], "--recalld-addr",
                   addrs["recalld"], "--tenant", TENANT]
    mcp = os.path.join(opts.build, "engram-mcp")
    http, ports = daemons.spawn(mcp, ["--transport", "http", "--http-addr", "127.0.0.1:0", "--auth-tokens", lines,
                                      "--token", TOKENS["user"], "--admin-token", TOKENS["admin"], "--user", "leo",
                                      "--log-level", "info"] + daemon_args, env, tmp, "engram-mcp-http", 10,
                                keys=("http",))
    rc = 1
    try:
        if ports is None:
            print("engram-mcp --transport http did not start:\n" + daemons.log_tail(tmp, "engram-mcp-http"))
            return 1
        client_env = dict(env, MCP_TOOLS_DIR=tools, ENGRAM_MCP_BIN=mcp, ENGRAM_MCP_ARGS="\n".join(daemon_args),
                          ENGRAM_MCP_URL="http://127.0.0.1:%d/mcp" % ports["http"], ENGRAM_MCP_TENANT=TENANT,
                          ENGRAM_MCP_USER_TOKEN=TOKENS["user"], ENGRAM_MCP_ADMIN_TOKEN=TOKENS["admin"],
                          ENGRAM_MCP_OTHER_TOKEN=TOKENS["other"], ENGRAM_MCP_LOG_DIR=tmp)
        rc = subprocess.run([node, os.path.join(ROOT, "tests/mcp/mcp_client.mjs")], env=client_env,
                            timeout=240).returncode
    finally:
        http.terminate()
        http.wait(timeout=30)
        daemons.stop_all(running)
    if rc != 0:
        print("logs in", tmp)
        for name in list(running) + ["engram-mcp-http"]:
            print("---- %s (tail)\n%s" % (name, daemons.log_tail(tmp, name, 1500)))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

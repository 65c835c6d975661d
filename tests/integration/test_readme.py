#!/usr/bin/python3
"""test_readme.py — the README's commands, run as written against the four real daemons.

The shell blocks of README.md's "The CLI" section are run in order, one line at a time,
from a temp dir holding a copy of examples/ (as a user runs them from the top of the
repository), with `build/engram` and the default addresses (127.0.0.1:7101 …) rewritten
to the test's build and daemons (free loopback ports, data in a temp dir, no tokens).
Every command must exit 0, and the ones listed in EXPECT must print what is expected, so
the README cannot drift from the CLI. Then the stub command of "The API" is run in the
repository itself: the stubs must land in a temp dir and the repository must not change.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "deploy"))
import daemons  # noqa: E402

ROOT = daemons.ROOT
DEFAULT_PORTS = {"ingestd": 7101, "graphd": 7102, "vectord": 7103, "recalld": 7104}
failures = []

# (a piece of the command, what its stdout + stderr must contain)
EXPECT = [
    ("engram health", "SERVING"),
    ("--addr 127.0.0.1:7102 health", "graphd "),
    ("version", "engram "),
    ("relations", "LIVES_IN             ONE"),
    ("graph commit examples/facts.json", "committed 2 edges"),
    ("graph commit examples/typo.json", "did you mean LIVES_IN (ONE)?"),
    ('graph state "Maya Patel"', "LIVES_IN = London"),
    ("graph history", "vegan"),
    ("graph changes --from 2025-02-01", "LIVES_IN = London"),
    ("graph traverse", "-LIVES_IN-> London"),
    ("graph walk 1", "#1 UNVERIFIED"),
    ("vector upsert", "upserted 2 chunks"),
    ("vector search", "#17"),
    ("vector delete 17", "deleted 1"),
    ("ingest session examples/chat.json", "chunks,"),
    ("--title", "chunks,"),
    ("ingest facts examples/inference.json", "2 facts"),
    ("--async", "accepted: job "),
    ("--wait", " DONE"),
    ("--parallel 4", "3 lines (0 skipped by resume): 3 ingested"),
    ("--resume", "0 lines (3 skipped by resume)"),
    ("Where do I live now?", "context tokens"),
    ("signing authority?\" --known-at", '"context"'),
    ("call Graph/State", "London"),
    ("DeclareRelation", "CARDINALITY_ONE"),
    ("erase", "erased user maya of tenant acme"),
]


def check(ok, what):
    print("ok  " if ok else "FAIL", what)
    if not ok:
        failures.append(what)


def section(text, title, level=3):
    """The text of the section named title (up to the next heading of level 2 or 3)."""
    m = re.search(r"^%s %s\n(.*?)(?=^##)" % ("#" * level, re.escape(title)), text, re.S | re.M)
    return m.group(1) if m else ""


def commands(text):
    """The commands of the ```sh blocks of text, without blank lines and comments; a line
    ending with a pipe goes on on the next."""
    out = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if out and out[-1].rstrip().endswith("|"):
                out[-1] += "\n" + line
            else:
                out.append(line)
    return out


def rewrite(cmd, engram, addrs):
    """cmd with build/engram as the test's binary pointed at the test's daemons."""
    for name, port in DEFAULT_PORTS.items():
        cmd = cmd.replace("127.0.0.1:%d" % port, "127.0.0.1:%d" % addrs[name])
    options = " ".join("--%s-addr 127.0.0.1:%d" % (n, p) for n, p in addrs.items())
    return cmd.replace("build/engram", "%s %s" % (engram, options))


def run(cmd, cwd, env):
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60)
    return p.returncode, p.stdout


def test_cli_section(readme, build, tmp, addrs):
    cmds = commands(section(readme, "The CLI"))
    check(len(cmds) >= 25, "the CLI section has its commands (%d)" % len(cmds))
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(work, "examples"))
    env = dict(os.environ, ENGRAM_TIMEOUT_MS="30000")
    for k in list(env):
        if k.startswith("ENGRAM_") and k != "ENGRAM_TIMEOUT_MS":
            del env[k]  # the README's commands, not the caller's environment, choose
    seen = set()
    for cmd in cmds:
        rc, out = run(rewrite(cmd, os.path.join(build, "engram"), addrs), work, env)
        check(rc == 0, "exit 0: %s%s" % (cmd, "" if rc == 0 else " (exit %d)\n%s" % (rc, out)))
        for piece, want in EXPECT:
            if piece in cmd and piece not in seen:
                seen.add(piece)
                check(want in out, "%s prints %r%s" % (cmd, want, "" if want in out else ":\n" + out))
                break
    for piece, _ in EXPECT:
        check(piece in seen, "the README still has a command with %r" % piece)
    # every JSON file the section names is in examples/
    for name in sorted(set(re.findall(r"[\w-]+\.jsonl?\b", section(readme, "The CLI")))):
        check(os.path.exists(os.path.join(ROOT, "examples", name)), "examples/%s exists" % name)


def test_three_ways_in(readme, build, tmp, addrs):
    """The quick CLI of "Three ways in": a statement in, the recall names it."""
    cmds = commands(section(readme, "Three ways in", 2))
    check(len(cmds) == 2, "Three ways in has its two CLI commands (%d)" % len(cmds))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    for cmd in cmds:
        rc, out = run(rewrite(cmd, os.path.join(build, "engram"), addrs), tmp, env)
        check(rc == 0, "exit 0: %s%s" % (cmd, "" if rc == 0 else " (exit %d)\n%s" % (rc, out)))
        if "recall" in cmd:
            check("Lisbon" in out, "the recall names Lisbon:\n" + out)


def repo_state():
    """The repository's tracked changes and untracked files (what a stray write would add)."""
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, stdout=subprocess.PIPE,
                          text=True).stdout


def test_stub_command(readme, tmp):
    cmds = commands(section(readme, "The API"))
    check(any("grpc_tools.protoc" in c for c in cmds), "the API section has the stub command")
    before = repo_state()
    env = dict(os.environ, PATH="/usr/bin:/bin", TMPDIR=tmp)  # Debian's python3, with python3-grpc-tools
    rc, out = run("\n".join(cmds), ROOT, env)
    check(rc == 0, "the stub command exits 0" + ("" if rc == 0 else ":\n" + out))
    stubs = [d for d in os.listdir(tmp) if d.startswith("tmp.")]
    check(any(os.path.exists(os.path.join(tmp, d, "engram", "v1", "graph_pb2_grpc.py")) for d in stubs),
          "the stubs are in a temp dir: %s" % stubs)
    check(repo_state() == before, "the stub command wrote nothing into the repository")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    build = os.path.abspath(ap.parse_args().build)
    readme = open(os.path.join(ROOT, "README.md")).read()
    tmp = tempfile.mkdtemp(prefix="engram-readme-")
    running = daemons.start_all(build, tmp, ["--insecure-no-auth"])
    try:
        addrs = {name: r[1] for name, r in running.items()}
        test_cli_section(readme, build, tmp, addrs)
        test_three_ways_in(readme, build, tmp, addrs)
        stubs = os.path.join(tmp, "stubs")
        os.makedirs(stubs)
        test_stub_command(readme, stubs)
    finally:
        daemons.stop_all(running)
    return daemons.finish(tmp, failures)


if __name__ == "__main__":
    sys.exit(main())

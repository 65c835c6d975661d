#!/usr/bin/python3
"""test_explorer.py — engram-explorer against the four real daemons, its page in a real browser.

1. The four daemons (bearer tokens, GloVe embedder) and engram-explorer start on free loopback
   ports in a temporary directory.
2. Through the CLI, a user who moved cities: LIVES_IN Lisbon, a commute that rests on it
   (derived_from), then LIVES_IN London, which supersedes Lisbon and leaves the commute
   POTENTIALLY_STALE; and a short conversation about the move.
3. The JSON API directly: each endpoint's answer, and its errors — no token and a wrong one
   401, another tenant's token 403, missing or malformed arguments 400, a POST 405.
4. page.mjs drives Debian's headless Chromium with playwright-core (tools/explorer): a wrong
   token shows the 401; the timeline shows the facts with the superseded and the stale ones
   marked and their reasons on hover; a click shows the history; the Recall debugger lists
   the items with their signals and statuses. With --screenshot it saves the page.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests/deploy"))
import daemons  # noqa: E402

TOKEN = "explorer-acme-token"
OTHER_TOKEN = "explorer-other-token"
CHROMIUM = "/usr/bin/chromium"
TOOLS = os.path.join(ROOT, "var/tools/explorer/node_modules")
failures = []


def check(ok, what):
    print("ok  " if ok else "FAIL", what)
    if not ok:
        failures.append(what)


def get(base, path, params=None, token=None, method="GET"):
    """(status, parsed JSON or text, content type) of one request to the explorer."""
    url = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
    req = urllib.request.Request(url, method=method, headers={"Authorization": "Bearer " + token} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, body, ctype = r.status, r.read().decode(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, body, ctype = e.code, e.read().decode(), e.headers.get("Content-Type", "")
    return status, json.loads(body) if ctype.startswith("application/json") else body, ctype


def seed(build, running, tmp):
    """The user maya who moved from Lisbon to London, through the CLI."""
    cli = [os.path.join(build, "engram"), "--timeout-ms", "30000", "--tenant", "acme", "--user", "maya",
           "--graphd-addr", "127.0.0.1:%d" % running["graphd"][1],
           "--ingestd-addr", "127.0.0.1:%d" % running["ingestd"][1]]
    env = dict(os.environ, ENGRAM_TOKEN=TOKEN)
    lisbon = {"edges": [
        {"subject": {"name": "Maya Patel", "type": "person"}, "relation": "LIVES_IN",
         "object_entity": {"name": "Lisbon", "type": "place"}, "valid_from": "2023-03-01",
         "meta": {"reason": "took a job at a Lisbon startup", "source_session_id": "2023-03-chat", "extractor": "client"}},
        {"subject": {"name": "Maya Patel"}, "relation": "COMMUTES_BY", "object_literal": "tram 28",
         "valid_from": "2023-03-15", "derived_from_index": [0],
         "meta": {"reason": "the tram runs past her flat in Lisbon", "extractor": "client"}}]}
    london = {"edges": [
        {"subject": {"name": "Maya Patel"}, "relation": "LIVES_IN", "object_entity": {"name": "London", "type": "place"},
         "valid_from": "2024-10-01",
         "meta": {"reason": "moved for a new job in London", "source_session_id": "2024-11-02-chat", "extractor": "client"}}]}
    chat = {"session_id": "2024-11-02-chat", "session_time": "2024-11-02T09:00:00Z", "messages": [
        {"role": "user", "content": "I moved to London last October for a new job."},
        {"role": "assistant", "content": "Congratulations! How are you finding London?"},
        {"role": "user", "content": "I love it, though I miss riding tram 28 to work in Lisbon."}]}
    for name, doc, cmd in (("lisbon", lisbon, ["graph", "commit"]), ("london", london, ["graph", "commit"]),
                           ("chat", chat, ["ingest", "session"])):
        path = os.path.join(tmp, name + ".json")
        json.dump(doc, open(path, "w"))
        r = subprocess.run(cli + cmd + [path], capture_output=True, text=True, env=env, timeout=60)
        if r.returncode != 0:
            sys.exit("seeding %s failed: %s" % (name, r.stderr.strip()[-500:]))


def check_api(base):
    st, body, _ = get(base, "/api/timeline", {"tenant": "acme", "user": "maya"}, TOKEN)
    facts = body.get("facts", []) if st == 200 else []
    by = {(f["edge"]["relation"], f["edge"]["object"].get("literal") or f["edge"].get("object_name")):
          f.get("walk", {}).get("status") for f in facts}
    check(st == 200 and len(facts) >= 3, "the timeline lists maya's facts (got %d, HTTP %d)" % (len(facts), st))
    check(any(f["edge"].get("meta", {}).get("source_session_id") == "2024-11-02-chat" and
              f["edge"]["subject_name"] != "Maya Patel" for f in facts), "with what the rules read from the chat")
    check(by.get(("LIVES_IN", "Lisbon")) == "EPISTEMIC_STATUS_SUPERSEDED", "Lisbon is superseded: %s" % by)
    check(by.get(("COMMUTES_BY", "tram 28")) == "EPISTEMIC_STATUS_POTENTIALLY_STALE", "the commute is stale")
    check(by.get(("LIVES_IN", "London")) not in ("EPISTEMIC_STATUS_SUPERSEDED", "EPISTEMIC_STATUS_POTENTIALLY_STALE"),
          "London is current")
    st, body, _ = get(base, "/api/timeline", {"tenant": "acme", "user": "maya", "known_at": "2000-01-01"}, TOKEN)
    check(st == 200 and body["facts"] == [], "known_at before anything was learned: no facts")
    st, body, _ = get(base, "/api/history", {"tenant": "acme", "user": "maya", "subject": "Maya Patel",
                                             "relation": "LIVES_IN"}, TOKEN)
    chain = [(e["edge"].get("object_name"), bool(e.get("superseded"))) for e in body.get("entries", [])]
    check(st == 200 and chain == [("Lisbon", True), ("London", False)], "the history of LIVES_IN in order: %s" % chain)
    st, body, _ = get(base, "/api/recall", {"tenant": "acme", "user": "maya", "q": "How does Maya Patel get to work?"},
                      TOKEN)
    items = body.get("items", []) if st == 200 else []
    check(any(i.get("status") == "EPISTEMIC_STATUS_POTENTIALLY_STALE" and "tram 28" in i.get("text", "")
              for i in items), "recall: the commute comes back POTENTIALLY_STALE")
    check(any(i.get("signals") for i in items), "recall: items carry their signals")
    # errors
    for what, token, params, want, code in (
            ("no token", None, {"tenant": "acme"}, 401, "UNAUTHENTICATED"),
            ("a wrong token", "not-a-token", {"tenant": "acme"}, 401, "UNAUTHENTICATED"),
            ("another tenant's token", OTHER_TOKEN, {"tenant": "acme"}, 403, "PERMISSION_DENIED"),
            ("no tenant", TOKEN, {"user": "maya"}, 400, "INVALID_ARGUMENT"),
            ("a malformed known_at", TOKEN, {"tenant": "acme", "known_at": "yesterday-ish"}, 400, "INVALID_ARGUMENT")):
        st, body, ctype = get(base, "/api/timeline", params, token)
        err = body.get("error", {}) if isinstance(body, dict) else {}
        check(st == want and err.get("code") == code and err.get("message"),
              "%s: HTTP %d %s (%s)" % (what, st, err.get("code"), err.get("message")))
    st, body, _ = get(base, "/api/recall", {"tenant": "acme"}, TOKEN)
    check(st == 400 and "q" in body["error"]["message"], "a recall without a question: 400")
    st, body, _ = get(base, "/api/recall", {"tenant": "acme", "q": "x", "k": "1000000"}, TOKEN)
    check(st == 400 and "at most" in body["error"]["message"], "recalld's own bound on k comes back: 400 %s" % body)
    st, body, _ = get(base, "/api/history", {"tenant": "acme"}, TOKEN)
    check(st == 400 and "subject" in body["error"]["message"], "a history without a subject: 400")
    st, body, _ = get(base, "/api/history", {"tenant": "acme", "subject": "Maya Patel", "relation": "lives in"}, TOKEN)
    check(st == 400 and "UPPER_SNAKE" in body["error"]["message"], "graphd's message on a bad relation: 400 %s" % body)
    st, body, _ = get(base, "/api/history", {"tenant": "acme", "subject": "Nobody Known"}, TOKEN)
    check(st == 200 and not body.get("entries"), "an entity nobody knows: an empty history")
    st, body, _ = get(base, "/api/nothing", {"tenant": "acme"}, TOKEN)
    check(st == 404, "an unknown endpoint: 404")
    st, body, ctype = get(base, "/")
    check(st == 200 and ctype.startswith("text/html") and "Engram memory explorer" in body, "the page is served")
    st, body, _ = get(base, "/api/timeline", {"tenant": "acme"}, TOKEN, method="POST")
    check(st == 405, "a POST is refused: 405")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--screenshot", help="save a screenshot of the page here (docs/explorer.png)")
    opts = ap.parse_args()
    node = shutil.which("node")
    if not node or not os.path.exists(CHROMIUM) or not os.path.isdir(os.path.join(TOOLS, "playwright-core")):
        sys.exit("node, %s or playwright-core (%s) is missing: run scripts/install-deps.sh and "
                 "scripts/install-test-tools.sh" % (CHROMIUM, TOOLS))
    tmp = tempfile.mkdtemp(prefix="engram-explorer-")
    running = daemons.start_all(opts.build, tmp, daemons.auth_flags([daemons.token_line("acme", TOKEN),
                                                                      daemons.token_line("other", OTHER_TOKEN)],
                                                                     "explorer-service-token"))
    explorer = None
    try:
        explorer, ports = daemons.spawn(
            os.path.join(opts.build, "engram-explorer"),
            ["--http-addr", "127.0.0.1:0", "--graphd-addr", "127.0.0.1:%d" % running["graphd"][1],
             "--recalld-addr", "127.0.0.1:%d" % running["recalld"][1]], dict(os.environ), tmp, "explorer", 10,
            keys=("http",))
        if ports is None:
            sys.exit("engram-explorer did not start:\n%s" % daemons.log_tail(tmp, "explorer"))
        base = "http://127.0.0.1:%d" % ports["http"]
        seed(opts.build, running, tmp)
        check_api(base)
        page = subprocess.run(
            [node, os.path.join(HERE, "page.mjs"), TOOLS, CHROMIUM, base, TOKEN,
             opts.screenshot or os.path.join(tmp, "explorer.png"), os.path.join(tmp, "chromium-profile")],
            capture_output=True, text=True, timeout=120)
        print(page.stdout, end="")
        check(page.returncode == 0, "the page checks in Chromium%s" % (": " + page.stderr[-1500:] if page.returncode else ""))
    finally:
        if explorer:
            explorer.terminate()
            check(explorer.wait(timeout=15) == 0, "engram-explorer stops cleanly on SIGTERM")
        daemons.stop_all(running)
    sys.exit(daemons.finish(tmp, failures))


if __name__ == "__main__":
    main()

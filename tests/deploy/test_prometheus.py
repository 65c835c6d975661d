#!/usr/bin/python3
"""test_prometheus.py — a real Prometheus (Debian's package) scrapes the four daemons.

1. The daemons start on loopback with bearer tokens; Prometheus starts with deploy/prometheus/prometheus.yml
   (targets pointed at the daemons' metrics ports, a 1 s interval) and the alert rules of
   the prod overlay's PrometheusRule.
2. Through Prometheus's HTTP API: `up` is 1 for all four jobs; request counters grow after
   an ingest and a recall, the refused-call counter after a Recall without a token; the
   rules are loaded and evaluate without error.
3. Every PromQL expression of the Grafana dashboard and of the rules is valid (Prometheus
   evaluates it) and names only metrics the daemons really export (a live scrape).
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

import daemons

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMONS = ("graphd", "vectord", "ingestd", "recalld")
failures = []


def check(ok, what):
    print("ok  " if ok else "FAIL", what)
    if not ok:
        failures.append(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


TOKEN = "prom-user-token"


def start_daemons(build, tmp):
    env = dict(os.environ, ENGRAM_MODELS_DIR=os.path.join(ROOT, "var/models"), ENGRAM_EMBEDDER="glove")
    return daemons.start_cluster(build, tmp, ["--auth-tokens", "prom sha256:%s" % hashlib.sha256(TOKEN.encode()).hexdigest(),
                                              "--service-token", "prom-service-token"], env)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def query(base, q):
    body = json.loads(get(base + "/api/v1/query?" + urllib.parse.urlencode({"query": q})))
    return body


def scalar(base, q):
    r = query(base, q)["data"]["result"]
    return float(r[0]["value"][1]) if r else 0.0


def wait(what, fn, timeout=40):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if fn():
                check(True, what)
                return True
        except (OSError, ValueError, KeyError, IndexError):
            pass
        time.sleep(0.5)
    check(False, what)
    return False


def live_names(running):
    names = set()
    for name, (_, _, mport) in running.items():
        for line in get("http://127.0.0.1:%d/metrics" % mport).splitlines():
            if line.startswith("# TYPE "):
                fam, kind = line.split()[2:4]
                names.add(fam)
                if kind == "histogram":
                    names.update({fam + "_bucket", fam + "_sum", fam + "_count"})
    return names | {"up"}


def metric_names(expr):
    """The metric names an expression reads: bare names, and each alternative of a
    __name__=~"prefix_(a|b)_suffix" matcher."""
    out = set()
    for m in re.finditer(r'__name__=~"([^"]*)"', expr):
        rx = m.group(1)
        g = re.search(r"\(([^()]*)\)", rx)
        alts = g.group(1).split("|") if g else [""]
        out.update(rx[:g.start()] + a + rx[g.end():] if g else rx for a in alts)
    stripped = re.sub(r'\{[^}]*\}', "", expr)  # label matchers are not names
    out.update(re.findall(r"\b(engram_[a-z0-9_]+|up)\b", stripped))
    return out


def exprs(rules_path):
    dash = json.load(open(os.path.join(ROOT, "deploy/grafana/engram.json")))
    found = [("dashboard: " + p["title"], t["expr"]) for p in dash["panels"] for t in p.get("targets", [])]
    for g in yaml.safe_load(open(rules_path))["groups"]:
        found += [("rule " + r["alert"], r["expr"]) for r in g["rules"]]
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    opts = ap.parse_args()
    prom = shutil.which("prometheus")
    if not prom:
        sys.exit("prometheus is missing (Debian package prometheus; scripts/install-deps.sh)")
    tmp = tempfile.mkdtemp(prefix="engram-prom-")
    running = start_daemons(opts.build, tmp)
    rules = os.path.join(tmp, "engram-rules.yml")
    r = yaml.safe_load(open(os.path.join(ROOT, "deploy/k8s/components/monitoring/prometheusrule.yaml")))
    yaml.safe_dump(r["spec"], open(rules, "w"))
    cfg = yaml.safe_load(open(os.path.join(ROOT, "deploy/prometheus/prometheus.yml")))
    cfg["global"].update(scrape_interval="1s", evaluation_interval="1s")
    cfg["rule_files"] = [rules]
    for job in cfg["scrape_configs"]:
        job["static_configs"] = [{"targets": ["127.0.0.1:%d" % running[job["job_name"]][2]]}]
    check(sorted(j["job_name"] for j in cfg["scrape_configs"]) == sorted(DAEMONS), "the example scrapes all four")
    yaml.safe_dump(cfg, open(os.path.join(tmp, "prometheus.yml"), "w"))
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    pp = subprocess.Popen([prom, "--config.file", os.path.join(tmp, "prometheus.yml"),
                           "--storage.tsdb.path", os.path.join(tmp, "tsdb"), "--web.listen-address",
                           "127.0.0.1:%d" % port], stdout=open(os.path.join(tmp, "prometheus.log"), "w"),
                          stderr=subprocess.STDOUT)
    try:
        wait("Prometheus ready", lambda: "Ready" in get(base + "/-/ready"))
        wait("up == 1 for all four", lambda: sorted(
            (s["metric"]["job"], s["value"][1]) for s in query(base, "up")["data"]["result"]) ==
            sorted((d, "1") for d in DAEMONS))
        check(sorted(s["metric"]["job"] for s in query(base, "up == 1")["data"]["result"]) == sorted(DAEMONS),
              "up == 1 for graphd, vectord, ingestd and recalld")
        before_i = scalar(base, "sum(engram_ingestd_rpc_requests_total)")
        before_r = scalar(base, "sum(engram_recalld_recalls_total)")
        engram = [os.path.join(opts.build, "engram"), "--timeout-ms", "20000"]
        cli_env = dict(os.environ, ENGRAM_TOKEN=TOKEN)
        refused = subprocess.run(engram + ["--addr", "127.0.0.1:%d" % running["recalld"][1], "--tenant", "prom",
                                           "recall", "anything"], capture_output=True, text=True,
                                 env={k: v for k, v in os.environ.items() if k != "ENGRAM_TOKEN"})
        check(refused.returncode != 0 and "UNAUTHENTICATED" in refused.stderr, "a Recall without a token is refused")
        sess = os.path.join(tmp, "s.json")
        json.dump({"scope": {"tenant": "prom"}, "session_id": "s1", "session_time": "2024-05-01T10:00:00Z",
                   "messages": [{"role": "user", "content": "I adopted a beagle called Miso last spring."}]},
                  open(sess, "w"))
        ing = subprocess.run(engram + ["--addr", "127.0.0.1:%d" % running["ingestd"][1], "ingest", "session",
                                       sess], capture_output=True, text=True, env=cli_env)
        check(ing.returncode == 0, "an ingest through the CLI: %s" % ing.stderr.strip()[-300:])
        rec = subprocess.run(engram + ["--addr", "127.0.0.1:%d" % running["recalld"][1], "--tenant", "prom",
                                       "recall", "What is my dog called?"], capture_output=True, text=True,
                             env=cli_env)
        check(rec.returncode == 0 and "Miso" in rec.stdout, "a recall through the CLI finds it")
        wait("ingestd's request counter grew in Prometheus",
             lambda: scalar(base, "sum(engram_ingestd_rpc_requests_total)") > before_i)
        wait("recalld's recall counter grew in Prometheus",
             lambda: scalar(base, "sum(engram_recalld_recalls_total)") >= before_r + 1)
        wait("recalld's refused-call counter counted the tokenless Recall", lambda: scalar(
            base, 'sum(engram_recalld_auth_refused_total{code="UNAUTHENTICATED"})') >= 1)
        wait("the rules are loaded and evaluated without error", lambda: (lambda g: len(g) == 1 and all(
            x["health"] == "ok" and x.get("lastEvaluation", "").startswith("20") for x in g[0]["rules"]) and
            len(g[0]["rules"]) >= 9)(json.loads(get(base + "/api/v1/rules"))["data"]["groups"]))
        names = live_names(running)
        for where, e in exprs(rules):
            used = metric_names(e)
            missing = sorted(n for n in used if n not in names)
            check(used and not missing, "%s reads exported metrics%s" % (where, (": missing " + ", ".join(missing))
                                                                           if missing else ""))
            res = query(base, e.replace("$__rate_interval", "1m"))
            check(res.get("status") == "success", "%s is valid PromQL" % where)
    finally:
        pp.terminate()
        pp.wait(timeout=30)
        daemons.stop_cluster(running)
    if failures:
        print("logs in", tmp)
        sys.exit("%d check(s) failed" % len(failures))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

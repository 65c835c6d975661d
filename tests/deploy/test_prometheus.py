#!/usr/bin/python3
"""test_prometheus.py — a real Prometheus (Debian's package) scrapes the four daemons.

1. `promtool check config` accepts deploy/prometheus/prometheus.yml as shipped, with the
   rules file it names (deploy/prometheus/engram-rules.yml).
2. The daemons start on loopback with bearer tokens; Prometheus starts with that
   configuration (targets pointed at the daemons' metrics ports, a 1 s interval) and its
   rules file.
3. Through Prometheus's HTTP API, after an ingest, a recall and a Recall without a token:
   `up` is 1 for all four jobs; the standard gRPC series (grpc_server_started_total,
   grpc_server_handled_total with grpc-go's code names, grpc_server_handling_seconds with
   the default buckets, grpc_server_msg_*) count the calls, the daemon told apart by the
   job label; ingestd's and recalld's calls to graphd and vectord show as
   grpc_client_handled_total and grpc_client_handling_seconds; the rules are loaded and
   evaluate without error.
4. Every PromQL expression of the Grafana dashboard and of the rules is valid (Prometheus
   evaluates it), names only metrics the daemons really export (a live scrape), and every
   grpc_* selector in it matches live series (label names and values included).
5. A graphd and a vectord replica whose log (--replog-dsn) is unreachable are scraped too,
   as second targets of their jobs: the replication alerts read their series, and
   EngramReplicaLogLost becomes active for exactly those two, EngramShardNoWriter for their
   shard of each job (and no lag alert does).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

import daemons

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMONS = daemons.ORDER
# Prometheus client libraries' default buckets, which go-grpc-prometheus uses
STANDARD_LE = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]
failures = []


def check(ok, what):
    print("ok  " if ok else "FAIL", what)
    if not ok:
        failures.append(what)


TOKEN = "prom-user-token"


AUTH = daemons.auth_flags([daemons.token_line("prom", TOKEN)], "prom-service-token")
REPLICATED = ("graphd", "vectord")


def start_daemons(build, tmp):
    return daemons.start_all(build, tmp, AUTH)


def start_replicas(build, tmp):
    """graphd and vectord over a log in PostgreSQL that cannot be reached (a closed loopback
    port): they serve, as followers, with their replication series saying the log is lost."""
    dsn = "host=127.0.0.1 port=%d dbname=engram connect_timeout=1" % daemons.free_port()
    return daemons.start_all(build, tmp, AUTH + ["--replog-dsn", dsn], names=REPLICATED, tag="-replica")


def active_alerts(base, name):
    """(job, instance, state) of each active alert called name."""
    return sorted((a["labels"]["job"], a["labels"]["instance"], a["state"])
                  for a in json.loads(get(base + "/api/v1/alerts"))["data"]["alerts"]
                  if a["labels"]["alertname"] == name)


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
    stripped = re.sub(r"\b(by|without)\s*\([^)]*\)", "", stripped)  # nor grouping labels
    out.update(re.findall(r"\b(engram_[a-z0-9_]+|grpc_[a-z0-9_]+|up)\b", stripped))
    return out


def grpc_selectors(expr):
    """Each grpc_* selector of an expression, as `count(…)` of it without its grpc_code
    matcher (error codes may rightly have no series yet)."""
    out = []
    for name, matchers in re.findall(r"\b(grpc_[a-z_]+)\{([^}]*)\}", expr):
        kept = [m.strip() for m in re.split(r",(?=\s*[a-z_]+\s*=)", matchers) if not m.strip().startswith("grpc_code")]
        out.append("count(%s{%s})" % (name, ", ".join(kept)))
    return out


def exprs(rules_path):
    dash = json.load(open(os.path.join(ROOT, "deploy/grafana/engram.json")))
    found = [("dashboard: " + p["title"], t["expr"]) for p in dash["panels"] for t in p.get("targets", [])]
    for g in yaml.safe_load(open(rules_path))["groups"]:
        found += [("rule " + r["alert"], r["expr"]) for r in g["rules"]]
    return found


def series(base, q):
    return query(base, q)["data"]["result"]


def check_grpc_series(base):
    """The standard gRPC families as the ingest, the recall and the refused Recall left them."""
    recall = 'job="recalld",grpc_type="unary",grpc_service="engram.v1.Recall",grpc_method="Recall"'
    check(sorted(s["metric"]["job"] for s in series(base, "count by (job) (grpc_server_started_total)")) ==
          sorted(DAEMONS), "grpc_server_started_total from all four daemons, told apart by job")
    check(scalar(base, 'sum(grpc_server_handled_total{%s,grpc_code="OK"})' % recall) >= 1 and
          scalar(base, 'sum(grpc_server_handled_total{%s,grpc_code="Unauthenticated"})' % recall) >= 1,
          "recalld's Recall handled OK once and Unauthenticated once (grpc-go's code names)")
    check(scalar(base, 'sum(grpc_server_started_total{%s})' % recall) ==
          scalar(base, 'sum(grpc_server_handled_total{%s})' % recall), "every started Recall was handled")
    check(scalar(base, 'sum(grpc_server_msg_received_total{%s})' % recall) >= 2 and
          scalar(base, 'sum(grpc_server_msg_sent_total{%s})' % recall) ==
          scalar(base, 'sum(grpc_server_handled_total{%s,grpc_code="OK"})' % recall),
          "messages: every Recall's request received, a response sent for each OK one")
    check(scalar(base, 'sum(grpc_server_handled_total{job="ingestd",grpc_service="engram.v1.Ingest",'
                       'grpc_method="IngestSession",grpc_code="OK"})') >= 1, "ingestd's IngestSession handled OK")
    les = sorted((s["metric"]["le"] for s in series(base, "grpc_server_handling_seconds_bucket{%s}" % recall)),
                 key=lambda v: float(v))
    check(les == STANDARD_LE, "grpc_server_handling_seconds has the standard buckets: %s" % ",".join(les))
    check(scalar(base, "sum(grpc_server_handling_seconds_count{%s})" % recall) ==
          scalar(base, "sum(grpc_server_handled_total{%s})" % recall), "every handled Recall was timed")
    for job, svc, method in (("ingestd", "engram.v1.Vector", "Upsert"), ("ingestd", "engram.v1.Graph", "Commit"),
                             ("recalld", "engram.v1.Vector", "Search")):
        sel = 'job="%s",grpc_type="unary",grpc_service="%s",grpc_method="%s"' % (job, svc, method)
        check(scalar(base, 'sum(grpc_client_handled_total{%s,grpc_code="OK"})' % sel) >= 1 and
              scalar(base, 'sum(grpc_client_handling_seconds_count{%s})' % sel) >= 1 and
              scalar(base, 'sum(grpc_client_started_total{%s})' % sel) >= 1,
              "%s's calls to %s/%s counted on the client side" % (job, svc, method))
    # the two jobs are scraped at different moments: vectord's count may reach Prometheus later
    wait("vectord served at least the Searches recalld counts as sent", lambda: scalar(
        base, 'sum(grpc_server_handled_total{job="vectord",grpc_service="engram.v1.Vector",grpc_method="Search"})') >=
        scalar(base, 'sum(grpc_client_handled_total{job="recalld",grpc_service="engram.v1.Vector",'
                     'grpc_method="Search"})') >= 1, timeout=10)
    check(not series(base, '{__name__=~"engram_.*_rpc_(requests_total|duration_seconds_bucket)"}'),
          "no second set of per-RPC series under the old names")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    opts = ap.parse_args()
    prom = shutil.which("prometheus")
    if not prom:
        sys.exit("prometheus is missing (Debian package prometheus; scripts/install-deps.sh)")
    shipped = os.path.join(ROOT, "deploy/prometheus/prometheus.yml")
    out = subprocess.run(["promtool", "check", "config", shipped], capture_output=True, text=True)
    check(out.returncode == 0, "promtool check config on the shipped prometheus.yml: %s" %
          (out.stdout + out.stderr).strip()[-500:])
    tmp = tempfile.mkdtemp(prefix="engram-prom-")
    running = start_daemons(opts.build, tmp)
    replicas = start_replicas(opts.build, tmp)
    cfg = yaml.safe_load(open(shipped))
    cfg["global"].update(scrape_interval="1s", evaluation_interval="1s")
    # the shipped rules file, as the shipped configuration names it (relative to its directory)
    rules = os.path.join(os.path.dirname(shipped), cfg["rule_files"][0])
    cfg["rule_files"] = [rules]
    for job in cfg["scrape_configs"]:
        job["static_configs"] = [{"targets": ["127.0.0.1:%d" % running[job["job_name"]][2]]}]
        if job["job_name"] in replicas:  # the shard label the ServiceMonitors give replicated shards
            job["static_configs"].append({"targets": ["127.0.0.1:%d" % replicas[job["job_name"]][2]],
                                          "labels": {"engram_dev_shard": "0"}})
    replica_targets = sorted((name, "127.0.0.1:%d" % replicas[name][2]) for name in REPLICATED)
    check(sorted(j["job_name"] for j in cfg["scrape_configs"]) == sorted(DAEMONS), "the example scrapes all four")
    yaml.safe_dump(cfg, open(os.path.join(tmp, "prometheus.yml"), "w"))
    port = daemons.free_port()
    base = "http://127.0.0.1:%d" % port
    pp = subprocess.Popen([prom, "--config.file", os.path.join(tmp, "prometheus.yml"),
                           "--storage.tsdb.path", os.path.join(tmp, "tsdb"), "--web.listen-address",
                           "127.0.0.1:%d" % port], stdout=open(os.path.join(tmp, "prometheus.log"), "w"),
                          stderr=subprocess.STDOUT)
    try:
        wait("Prometheus ready", lambda: "Ready" in get(base + "/-/ready"))
        targets = sorted(list(DAEMONS) + list(REPLICATED))
        wait("up == 1 for all four and the two replicas", lambda: sorted(
            (s["metric"]["job"], s["value"][1]) for s in query(base, "up")["data"]["result"]) ==
            sorted((d, "1") for d in targets))
        check(sorted(s["metric"]["job"] for s in query(base, "up == 1")["data"]["result"]) == targets,
              "up == 1 for graphd, vectord, ingestd and recalld, and the graphd and vectord replicas")
        before_i = scalar(base, 'sum(grpc_server_handled_total{job="ingestd"})')
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
             lambda: scalar(base, 'sum(grpc_server_handled_total{job="ingestd"})') > before_i)
        wait("recalld's recall counter grew in Prometheus",
             lambda: scalar(base, "sum(engram_recalld_recalls_total)") >= before_r + 1)
        wait("recalld's refused-call counter counted the tokenless Recall", lambda: scalar(
            base, 'sum(engram_recalld_auth_refused_total{code="UNAUTHENTICATED"})') >= 1)
        wait("the rules are loaded and evaluated without error", lambda: (lambda g: len(g) == 1 and all(
            x["health"] == "ok" and x.get("lastEvaluation", "").startswith("20") for x in g[0]["rules"]) and
            len(g[0]["rules"]) >= 10)(json.loads(get(base + "/api/v1/rules"))["data"]["groups"]))
        # the client side of the peer calls and the refused Recall reach Prometheus a scrape later
        wait("recalld's Searches to vectord reached Prometheus", lambda: scalar(
            base, 'sum(grpc_client_handled_total{job="recalld",grpc_service="engram.v1.Vector",'
                  'grpc_method="Search",grpc_code="OK"})') >= 1)
        wait("the tokenless Recall reached Prometheus as Unauthenticated", lambda: scalar(
            base, 'sum(grpc_server_handled_total{job="recalld",grpc_code="Unauthenticated"})') >= 1)
        check_grpc_series(base)
        wait("EngramReplicaLogLost is active for the graphd and vectord replicas without their log, "
             "and only for them", lambda: [(j, i) for j, i, st in active_alerts(base, "EngramReplicaLogLost")
                                           if st in ("pending", "firing")] == replica_targets)
        wait("EngramShardNoWriter is active for the replicas' shard of graphd and of vectord, and only for it",
             lambda: sorted((a["labels"]["job"], a["labels"].get("engram_dev_shard"), a["state"] in ("pending", "firing"))
                            for a in json.loads(get(base + "/api/v1/alerts"))["data"]["alerts"]
                            if a["labels"]["alertname"] == "EngramShardNoWriter") ==
             [("graphd", "0", True), ("vectord", "0", True)])
        check(not active_alerts(base, "EngramReplicaLagging") and not active_alerts(base, "EngramReplicaLagSeconds"),
              "no replica lag alert: a replica without its log has nothing to apply")
        names = live_names({**running, **{n + "-replica": r for n, r in replicas.items()}})
        for where, e in exprs(rules):
            used = metric_names(e)
            missing = sorted(n for n in used if n not in names)
            check(used and not missing, "%s reads exported metrics%s" % (where, (": missing " + ", ".join(missing))
                                                                           if missing else ""))
            res = query(base, e.replace("$__rate_interval", "1m"))
            check(res.get("status") == "success", "%s is valid PromQL" % where)
            for sel in grpc_selectors(e):
                check(scalar(base, sel) > 0, "%s: %s matches live series" % (where, " ".join(sel.split())))
    finally:
        pp.terminate()
        pp.wait(timeout=30)
        daemons.stop_all({**running, **{n + "-replica": r for n, r in replicas.items()}})
    sys.exit(daemons.finish(tmp, failures))


if __name__ == "__main__":
    main()

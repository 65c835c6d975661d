// validate.mjs — every Kubernetes object on stdin (a JSON array) checked against the
// Kubernetes and prometheus-operator schemas (kubernetes-models, whose validators are
// generated from the upstream OpenAPI schemas). Prints one line per object; exit 1 when
// an object is invalid or of a kind no schema covers.
//
//   node validate.mjs <node_modules dir> < objects.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const modules = process.argv[2];
const objs = JSON.parse(readFileSync(0, "utf8"));
let bad = 0;
for (const o of objs) {
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
  const pkg = group === "monitoring.coreos.com" ? "@kubernetes-models/prometheus-operator" : "kubernetes-models";
  const file = path.join(modules, pkg, group ? `${group}/${version}` : version, `${o.kind}.js`);
  const what = `${o.apiVersion} ${o.kind} ${o.metadata?.name}`;
  let Model;
  try {
    Model = (await import(pathToFileURL(file).href))[o.kind];
  } catch {
    console.log(`FAIL ${what}: no schema for this kind`);
    bad++;
    continue;
  }
  try {
    new Model(o).validate();
    console.log(`ok   ${what}`);
  } catch (e) {
    console.log(`FAIL ${what}: ${e.message}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);

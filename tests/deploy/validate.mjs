// validate.mjs — every Kubernetes object on stdin (a JSON array) checked against the
// Kubernetes and prometheus-operator schemas (kubernetes-models, whose validators are
// generated from the upstream OpenAPI schemas), and a kind no package covers against a
// schema of ours in tests/deploy/schemas/<group>-<version>-<kind>.json (ajv): CloudNativePG's
// Cluster. Prints one line per object; exit 1 when an object is invalid or of a kind no
// schema covers.
//
//   node validate.mjs <node_modules dir> < objects.json
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const modules = process.argv[2];
const schemas = path.join(path.dirname(new URL(import.meta.url).pathname), "schemas");
const objs = JSON.parse(readFileSync(0, "utf8"));
let ajv = null;

// A validator for a kind of our schemas, or null.
async function ours(group, version, kind) {
  const file = path.join(schemas, `${group}-${version}-${kind}.json`);
  if (!existsSync(file)) return null;
  if (!ajv) {
    const Ajv = (await import(pathToFileURL(path.join(modules, "ajv/dist/2019.js")).href)).default;
    ajv = new Ajv({ allErrors: true, strict: true });
  }
  const check = ajv.compile(JSON.parse(readFileSync(file, "utf8")));
  return (o) => {
    if (!check(o)) throw new Error(ajv.errorsText(check.errors, { dataVar: "" }));
  };
}

let bad = 0;
for (const o of objs) {
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
  const pkg = group === "monitoring.coreos.com" ? "@kubernetes-models/prometheus-operator" : "kubernetes-models";
  const file = path.join(modules, pkg, group ? `${group}/${version}` : version, `${o.kind}.js`);
  const what = `${o.apiVersion} ${o.kind} ${o.metadata?.name}`;
  let validate = await ours(group, version, o.kind);
  if (!validate) {
    try {
      const Model = (await import(pathToFileURL(file).href))[o.kind];
      validate = (x) => new Model(x).validate();
    } catch {
      console.log(`FAIL ${what}: no schema for this kind`);
      bad++;
      continue;
    }
  }
  try {
    validate(o);
    console.log(`ok   ${what}`);
  } catch (e) {
    console.log(`FAIL ${what}: ${e.message}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);

// explorer.js — the memory explorer's page: reads the explorer's JSON API with the bearer
// token typed in (kept in this tab's sessionStorage only) and draws the timeline, a fact's
// history and the Recall debugger. Plain DOM and SVG, no library.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

// An element with attributes and children (strings become text).
function el(tag, attrs, ...children) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  for (const c of children) if (c !== undefined && c !== null) e.append(c);
  return e;
}

function showError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  const what = err.status === 401 ? "Not authenticated (401): the token is missing or not accepted. "
    : err.status === 403 ? "Not allowed (403): this token belongs to another tenant. " : "";
  box.textContent = what + (err.code ? err.code + ": " : "") + err.message;
  box.dataset.status = err.status || "";
  box.hidden = false;
}

// GET path with the non-empty params and the token; the JSON answer, or throws the API's error.
async function api(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const token = $("token").value.trim();
  const headers = token ? { Authorization: "Bearer " + token } : {};
  const r = await fetch(path + "?" + q.toString(), { headers });
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!r.ok) {
    const e = new Error(body && body.error ? body.error.message : "HTTP " + r.status);
    e.status = r.status;
    e.code = body && body.error ? body.error.code : "";
    throw e;
  }
  return body;
}

function scope() {
  return { tenant: $("tenant").value.trim(), user: $("user").value.trim() };
}

const ms = (iso) => (iso ? Date.parse(iso) : NaN);
const day = (iso) => (iso ? iso.replace(/T00:00:00Z$/, "").replace("T", " ").replace(/Z$/, " UTC") : "…");
const objectOf = (e) => (e.object && e.object.literal !== undefined ? e.object.literal : e.object_name || "#" + ((e.object || {}).entity_id || "?"));
const statusName = (s) => (s || "").replace("EPISTEMIC_STATUS_", "");

// The class of a fact: how it is drawn.
function factClass(f) {
  if (f.edge.op === "EDGE_OP_RETRACT") return "retract";
  const s = statusName(f.walk && f.walk.status);
  if (s === "SUPERSEDED") return "superseded";
  if (s === "POTENTIALLY_STALE") return "stale";
  if (s === "CORROBORATED") return "corroborated";
  return "current";
}

function source(meta) {
  if (!meta) return "";
  const parts = [];
  if (meta.source_session_id) parts.push("session " + meta.source_session_id + (meta.source_turn !== undefined ? " turn " + meta.source_turn : ""));
  if (meta.source_document_id) parts.push("document " + meta.source_document_id);
  if (meta.extractor) parts.push("by " + meta.extractor);
  return parts.join(", ");
}

// The tooltip of a fact: what, when, why, from where.
function factTitle(f) {
  const e = f.edge, m = e.meta || {};
  const lines = [
    (e.subject_name || "#" + e.subject) + " " + e.relation + " " + objectOf(e),
    "valid " + day(e.valid_from) + " → " + (e.valid_to ? day(e.valid_to) : "open"),
    "learned " + day(e.t_commit),
    "status: " + factClass(f),
  ];
  if (m.reason) lines.push("reason: " + m.reason);
  const src = source(m);
  if (src) lines.push("source: " + src);
  if (m.utterance) lines.push("said: \u201c" + m.utterance + "\u201d");
  if (f.walk && f.walk.superseding) {
    const s = f.walk.superseding;
    lines.push("premise changed: " + s.relation + " " + objectOf(s) + " from " + day(s.valid_from));
  }
  return lines.join("\n");
}

// ---- timeline -----------------------------------------------------------------------

function ticks(lo, hi, n) {
  const out = [];
  for (let i = 0; i <= n; i++) out.push(lo + ((hi - lo) * i) / n);
  return out;
}

const dateLabel = (t) => new Date(t).toISOString().slice(0, 10);

// One row per fact, in the order Engram learned them (transaction time, upwards), so that
// facts learned moments apart stay apart; across, valid time on a linear scale.
function drawTimeline(body) {
  const facts = body.facts.slice().sort((a, b) => ms(a.edge.t_commit) - ms(b.edge.t_commit) || a.edge.id - b.edge.id);
  const box = $("timeline-body");
  box.replaceChildren();
  if (!facts.length) {
    box.append(el("p", { class: "empty" }, "No facts in this scope."));
    return;
  }
  const now = ms(body.valid_at) || Date.now();
  const vf = (f) => ms(f.edge.valid_from) || ms(f.edge.t_commit);
  let x0 = Math.min(...facts.map(vf)), x1 = Math.max(now, ...facts.map((f) => ms(f.edge.valid_to) || vf(f)));
  // where a fact stops holding: its valid_to, or for a superseded one the valid_from of the
  // next value on its chain
  const endOf = (f) => {
    if (f.edge.valid_to) return ms(f.edge.valid_to);
    if (factClass(f) !== "superseded") return NaN;
    const next = facts.filter((g) => g.edge.subject === f.edge.subject && g.edge.relation === f.edge.relation && vf(g) > vf(f));
    return next.length ? Math.min(...next.map(vf)) : NaN;
  };
  const subjects = new Set(facts.map((f) => f.edge.subject));
  const label = (e) => (subjects.size > 1 ? (e.subject_name || "#" + e.subject) + " " : "") + e.relation + " " + objectOf(e);
  const xpad = Math.max((x1 - x0) * 0.04, 86400000);
  x0 -= xpad; x1 += xpad;
  const W = 900, L = 150, R = 230, T = 14, B = 40;
  const rowH = facts.length <= 60 ? 24 : Math.max(4, 1440 / facts.length);
  const H = T + B + rowH * facts.length;
  const X = (t) => L + ((t - x0) / (x1 - x0)) * (W - L - R);
  const Y = (i) => T + rowH * (facts.length - i - 0.5); // the first learned at the bottom
  const svg = el("svg:svg", { viewBox: `0 0 ${W} ${H}`, id: "timeline-svg", role: "img",
    "aria-label": "facts by valid time and transaction time" });
  const axis = el("svg:g", { class: "axis" });
  axis.append(el("svg:line", { x1: L, y1: H - B, x2: W - R, y2: H - B }), el("svg:line", { x1: L, y1: T, x2: L, y2: H - B }));
  for (const t of ticks(x0, x1, 4)) {
    axis.append(el("svg:line", { x1: X(t), y1: H - B, x2: X(t), y2: H - B + 4 }),
      el("svg:text", { x: X(t), y: H - B + 16, "text-anchor": "middle" }, dateLabel(t)));
  }
  // the transaction time of a row, where it differs from the row below and there is room
  let lastLabel = "", lastY = Infinity;
  facts.forEach((f, i) => {
    const label = (f.edge.t_commit || "").replace("T", " ").replace(/(\.\d+)?Z$/, "");
    if (label !== lastLabel && rowH >= 14 && lastY - Y(i) >= 14) {
      axis.append(el("svg:text", { x: L - 6, y: Y(i) + 4, "text-anchor": "end" }, label));
      lastY = Y(i);
    }
    lastLabel = label;
  });
  axis.append(el("svg:text", { class: "axis-title", x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" },
    "valid time: when it is true in the world →"));
  axis.append(el("svg:text", { class: "axis-title", x: 10, y: T, "text-anchor": "start" }, "learned (transaction time) ↑"));
  if (now >= x0 && now <= x1) {
    axis.append(el("svg:line", { x1: X(now), y1: T, x2: X(now), y2: H - B, "stroke-dasharray": "2 3" }),
      el("svg:text", { x: X(now) + 3, y: H - B - 4 }, "now"));
  }
  svg.append(axis);
  facts.forEach((f, i) => {
    const e = f.edge, cls = factClass(f);
    const y = Y(i);
    const xa = X(vf(f)), xb = Math.max(X(endOf(f) || x1 - xpad / 2), xa + 2);
    const g = el("svg:g", { class: "fact " + cls, tabindex: 0, "data-edge": e.id, "data-subject": e.subject,
      "data-relation": e.relation, "data-object": objectOf(e), "data-status": cls });
    g.append(el("svg:title", {}, factTitle(f)),
      el("svg:rect", { class: "hit", x: L, y: y - rowH / 2, width: W - L, height: rowH }),
      el("svg:line", { x1: xa, y1: y, x2: xb, y2: y }),
      el("svg:circle", { cx: xa, cy: y, r: 4 }),
      el("svg:text", { x: xb + 6, y: y + 4 }, label(e)));
    const open = () => {
      for (const s of svg.querySelectorAll(".fact.selected")) s.classList.remove("selected");
      g.classList.add("selected");
      loadHistory(e);
    };
    g.addEventListener("click", open);
    g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") open(); });
    svg.append(g);
  });
  box.append(svg);
  if (body.truncated) box.append(el("p", { class: "hint" }, "Only the first " + facts.length + " facts are shown."));
}

async function loadTimeline() {
  showError(null);
  const body = await api("/api/timeline", { ...scope(), at: $("at").value.trim(), known_at: $("known-at").value.trim() });
  drawTimeline(body);
}

// ---- history ------------------------------------------------------------------------

async function loadHistory(edge) {
  const box = $("history-body");
  try {
    showError(null);
    const body = await api("/api/history", { ...scope(), subject: String(edge.subject), relation: edge.relation,
      known_at: $("known-at").value.trim() });
    box.replaceChildren(el("p", { class: "what", id: "history-title" }, (edge.subject_name || "#" + edge.subject) + " · " + edge.relation));
    const list = el("ol", { class: "chain", id: "history-list" });
    const entries = body.entries || [];
    const byId = new Map(entries.map((h) => [h.edge.id, h.edge]));
    for (const h of entries) {
      const e = h.edge, m = e.meta || {};
      const next = byId.get(h.superseded_by);
      const until = e.valid_to || (next && next.valid_from);
      const li = el("li", { class: h.superseded ? "superseded" : "current", "data-edge": e.id },
        el("span", { class: "what" }, (e.op === "EDGE_OP_RETRACT" ? "retracted " : "") + objectOf(e)), " ",
        el("span", { class: "badge " + (h.superseded ? "superseded" : "current") }, h.superseded ? "superseded" : "current"),
        el("div", { class: "meta" }, "valid " + day(e.valid_from) + " → " + (until ? day(until) : "open") +
          " · learned " + day(e.t_commit) + (h.superseded_by ? " · replaced by #" + h.superseded_by : "")));
      if (m.reason) li.append(el("div", { class: "reason" }, "reason: " + m.reason));
      const src = source(m);
      if (src) li.append(el("div", { class: "meta" }, "source: " + src));
      list.append(li);
    }
    box.append(entries.length ? list : el("p", { class: "empty" }, "No commits on this chain as known then."));
  } catch (err) {
    showError(err);
  }
}

// ---- recall debugger ----------------------------------------------------------------

function signalCell(item) {
  const td = el("td", { class: "signals" });
  const signals = item.signals || [];
  if (!signals.length) td.append(el("span", { class: "meta" }, item.kind === "ITEM_KIND_FACT" ? "graph fact" : "graph path"));
  for (const s of signals) {
    const v = s.value || 0;
    const fill = el("span");
    fill.style.width = Math.round(Math.min(1, Math.max(0, v)) * 100) + "%"; // CSSOM: allowed by the page's CSP
    td.append(el("div", { class: "signal", "data-signal": s.signal, "data-value": v.toFixed(4) },
      el("span", {}, s.signal), el("span", { class: "bar" }, fill), el("span", {}, v.toFixed(3))));
  }
  return td;
}

function drawRecall(body) {
  const box = $("recall-body");
  box.replaceChildren();
  const items = body.items || [];
  const summary = [items.length + " items"];
  if (body.nothing_relevant) summary.push("nothing relevant");
  if (body.variants && body.variants.length) summary.push("searched: " + body.variants.join(" | "));
  if (body.time_range && (body.time_range.from || body.time_range.to))
    summary.push("time range " + day(body.time_range.from) + " → " + day(body.time_range.to));
  if (body.timings) summary.push(body.timings.map((t) => t.stage + " " + ((t.micros || 0) / 1000).toFixed(1) + " ms").join(", "));
  box.append(el("p", { class: "summary", id: "recall-summary" }, summary.join(" · ")));
  const table = el("table", { id: "recall-items" },
    el("thead", {}, el("tr", {}, ...["#", "kind", "status", "score", "time", "text", "signals"].map((h) => el("th", {}, h)))));
  const tbody = el("tbody");
  items.forEach((it, i) => {
    const status = statusName(it.status) || "UNSPECIFIED";
    const text = el("td", { class: "text" }, it.text || "");
    if (it.superseding)
      text.append(el("div", { class: "meta" }, "premise changed: " + it.superseding.relation + " " + objectOf(it.superseding) +
        " from " + day(it.superseding.valid_from) + (it.superseding.meta && it.superseding.meta.reason ? " (" + it.superseding.meta.reason + ")" : "")));
    for (const h of it.history || [])
      text.append(el("div", { class: "meta" }, "earlier: " + objectOf(h) + " from " + day(h.valid_from) + (h.meta && h.meta.reason ? " (" + h.meta.reason + ")" : "")));
    tbody.append(el("tr", { class: "item", "data-kind": (it.kind || "").replace("ITEM_KIND_", ""), "data-status": status },
      el("td", {}, String(i + 1)),
      el("td", {}, (it.kind || "").replace("ITEM_KIND_", "")),
      el("td", {}, el("span", { class: "badge " + status.toLowerCase().replace("potentially_", "") }, status)),
      el("td", {}, (it.score || 0).toFixed(3)),
      el("td", {}, day(it.time)),
      text,
      signalCell(it)));
  });
  table.append(tbody);
  box.append(table);
  if (body.context) box.append(el("h3", {}, "Context block"), el("pre", { class: "context", id: "recall-context" }, body.context));
}

async function runRecall() {
  showError(null);
  const body = await api("/api/recall", { ...scope(), q: $("question").value.trim(), at: $("recall-at").value.trim(),
    known_at: $("recall-known-at").value.trim(), k: $("recall-k").value.trim() });
  drawRecall(body);
}

// ---- wiring -------------------------------------------------------------------------

function guarded(fn) {
  return async (ev) => {
    ev.preventDefault();
    sessionStorage.setItem("engram-token", $("token").value);
    try { await fn(); } catch (err) { showError(err); }
  };
}

document.addEventListener("DOMContentLoaded", () => {
  $("token").value = sessionStorage.getItem("engram-token") || "";
  $("scope-form").addEventListener("submit", guarded(loadTimeline));
  $("recall-form").addEventListener("submit", guarded(runRecall));
  document.body.dataset.ready = "1";
});

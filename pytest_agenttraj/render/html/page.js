"use strict";
// Draws the report held (gzip, base64) in #report-data. Every value from the report reaches the
// page through text nodes and attributes, never as markup.

const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

const B64 = new Uint8Array(128);
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  .split("").forEach((c, i) => { B64[c.charCodeAt(0)] = i; });

function fromBase64(text) {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, "");
  const n = clean.length;
  const out = new Uint8Array(Math.floor((n * 3) / 4));
  const at = (i) => B64[clean.charCodeAt(i)];
  let o = 0, i = 0;
  for (; i + 4 <= n; i += 4) {
    const v = (at(i) << 18) | (at(i + 1) << 12) | (at(i + 2) << 6) | at(i + 3);
    out[o++] = v >> 16; out[o++] = (v >> 8) & 255; out[o++] = v & 255;
  }
  const rest = n - i;
  if (rest >= 2) {
    const v = (at(i) << 18) | (at(i + 1) << 12) | (rest === 3 ? at(i + 2) << 6 : 0);
    out[o++] = v >> 16;
    if (rest === 3) out[o++] = (v >> 8) & 255;
  }
  return out.subarray(0, o);
}

async function loadReport() {
  const bytes = fromBase64(document.getElementById("report-data").textContent);
  performance.mark("decoded");
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const text = await new Response(stream).text();
  performance.mark("unzipped");
  const doc = JSON.parse(text);
  performance.mark("parsed");
  return doc;
}

// ------------------------------------------------------------------ labels

function kindOf(record) {
  const settings = record.settings || {};
  return settings.kind || (record.detail && record.detail.kind) || "-";
}

function outcome(record) {
  if (record.passed) return "pass";
  return record.error ? "error" : "fail";
}

function percent(value, digits) {
  return (value * 100).toFixed(digits === undefined ? 0 : digits) + "%";
}

function scoreLabel(score) {
  if (score === true) return "true";
  if (score === false) return "false";
  if (score === null || score === undefined) return "-";
  if (typeof score === "number") return Number.isInteger(score) ? String(score) : score.toPrecision(3);
  return String(score);
}

function modeLabel(record) {
  if (!record.mode) return "-";
  return record.tool_args_mode ? record.mode + "/" + record.tool_args_mode : record.mode;
}

function attemptsLabel(record) {
  if (record.attempts === undefined) return null;
  const passed = record.passed_attempts || 0, total = record.attempts;
  let text = passed + "/" + total + " passed";
  const interval = record.pass_rate_interval;
  if (total > 0 && Array.isArray(interval) && interval.length === 2) {
    const level = record.confidence ? percent(record.confidence) : "95%";
    text += " (" + percent(passed / total) + ", " + level + " CI " +
      (interval[0] * 100).toFixed(1) + "-" + (interval[1] * 100).toFixed(1) + "%)";
  } else if (total > 0) {
    text += " (" + percent(passed / total) + ")";
  }
  return text;
}

// ------------------------------------------------------------------ summary

function card(label, value, tone) {
  return el("div", { class: "card" + (tone ? " " + tone : "") }, el("b", { text: value }), label);
}

function summarySection(doc) {
  const s = doc.summary || {};
  const section = el("section", { id: "summary" }, el("h2", { text: "Summary" }));
  const cards = el("div", { class: "cards" },
    card("evaluations", String(s.evaluations ?? (doc.results || []).length)),
    card("passed", String(s.passed ?? 0), "good"),
    card("failed", String(s.failed ?? 0), (s.failed || 0) > 0 ? "bad" : null),
    card("tests", String(s.tests ?? 0)));
  if (s.attempts !== undefined) {
    cards.append(card("attempts passed", s.passed_attempts + "/" + s.attempts));
  }
  if (s.judge) {
    cards.append(card("judge calls", s.judge.model_calls + " (" + s.judge.cached + " cached)"));
  }
  section.append(cards);
  if (doc.complete === false) {
    section.append(el("p", { class: "warning",
      text: "This run did not finish: " + (doc.incomplete_reason || "no reason given") }));
  }
  const meta = [];
  if (doc.package_version) meta.push("pytest-agenttraj " + doc.package_version);
  if (doc.settings && doc.settings.mode) {
    meta.push("default mode " + doc.settings.mode + "/" + (doc.settings.tool_args || "exact"));
  }
  if (doc.merged_from) meta.push("merged from " + doc.merged_from.length + " reports");
  if (meta.length) section.append(el("p", { class: "muted", text: meta.join(" · ") }));
  const repeated = (doc.results || []).filter((r) => r.attempts !== undefined);
  if (repeated.length) {
    const table = el("table", { id: "pass-rates" },
      el("tr", {}, el("th", { text: "repeated test" }), el("th", { text: "key" }),
        el("th", { text: "pass rate" })));
    for (const record of repeated) {
      table.append(el("tr", {}, el("td", { class: "nodeid", text: record.nodeid }),
        el("td", { text: record.key }), el("td", { text: attemptsLabel(record) })));
    }
    section.append(el("h2", { text: "Pass rates" }), table);
  }
  return section;
}

function baselineSection(baseline) {
  const section = el("section", { id: "baseline" },
    el("h2", { text: "Against the baseline" + (baseline.path ? " (" + baseline.path + ")" : "") }));
  const counts = baseline.counts || {};
  section.append(el("p", { class: baseline.failed ? "warning" : "muted",
    text: Object.entries(counts).map(([k, v]) => v + " " + k).join(", ") +
      (baseline.failed ? ": the session fails" : "") }));
  const changes = baseline.changes || [];
  if (changes.length) {
    const table = el("table", {},
      el("tr", {}, ...["change", "test", "key", "before", "after", "detail"].map(
        (name) => el("th", { text: name }))));
    for (const change of changes) {
      table.append(el("tr", {},
        el("td", { class: change.fails ? "warning" : "", text: change.change }),
        el("td", { class: "nodeid", text: change.nodeid }),
        el("td", { text: change.key }),
        el("td", { text: scoreLabel(change.before) }),
        el("td", { text: scoreLabel(change.after) }),
        el("td", { text: change.detail || "" })));
    }
    section.append(table);
  }
  return section;
}

// ------------------------------------------------------------------ trajectories

function highlights(detail) {
  // top-level argument keys that differ, per side and message index
  const marks = { output: new Map(), reference: new Map() };
  for (const problem of detail.problems || []) {
    for (const diff of problem.args || []) {
      const key = String(diff.path).split(/[.[]/)[0];
      for (const [side, index] of [["output", problem.output_index], ["reference", problem.reference_index]]) {
        if (index === null || index === undefined) continue;
        if (!marks[side].has(index)) marks[side].set(index, new Set());
        marks[side].get(index).add(key);
      }
    }
  }
  return marks;
}

function value(v) {
  return JSON.stringify(v);
}

function callNode(call, marked) {
  const node = el("span", { class: "call" }, call.name + "(");
  const entries = Object.entries(call.args || {});
  entries.forEach(([key, v], i) => {
    const text = key + "=" + value(v);
    node.append(marked && marked.has(key) ? el("span", { class: "hl", text }) : text);
    if (i < entries.length - 1) node.append(", ");
  });
  node.append(")");
  return node;
}

function messageCell(message, position, marked) {
  const cell = el("td", {});
  if (!message) { cell.append(el("span", { class: "muted", text: "-" })); return cell; }
  cell.append(el("span", { class: "role", text: message.role }));
  if (position === null || position === undefined) {
    if (message.text) cell.append(": " + message.text);
    for (const call of message.calls || []) cell.append(callNode(call, marked));
  } else {
    const call = (message.calls || [])[position];
    if (call) cell.append(" ", callNode(call, marked));
  }
  return cell;
}

function trajectoryView(detail) {
  const output = detail.output || [];
  const reference = detail.same ? output : detail.reference || [];
  const marks = highlights(detail);
  const wrap = el("div", { class: "trajectory" });
  const title = detail.mode === "strict"
    ? "output vs reference, message by message"
    : "output calls beside the reference calls they paired with (" + detail.mode + " mode)";
  wrap.append(el("h3", { text: title }));
  const table = el("table", { class: "side" },
    el("colgroup", {}, el("col", { class: "idx" }), el("col", { class: "cell" }),
      el("col", { class: "idx" }), el("col", { class: "cell" })),
    el("tr", {}, el("th", { text: "out" }), el("th", { text: "output" }),
      el("th", { text: "ref" }), el("th", { text: "reference" })));
  // no rows: a passing strict match, message i beside message i
  const rows = detail.rows || output.map((_, i) => [i, i < reference.length ? i : null, false, null, null])
    .concat(reference.slice(output.length).map((_, i) => [null, output.length + i, false, null, null]));
  for (const [o, r, marked, op, rp] of rows) {
    const row = el("tr", { class: marked ? "marked" : null });
    row.append(el("td", { class: "idx", text: o === null ? "-" : o }),
      messageCell(o === null ? null : output[o], op, marks.output.get(o)),
      el("td", { class: "idx", text: r === null ? "-" : r }),
      messageCell(r === null ? null : reference[r], rp, marks.reference.get(r)));
    table.append(row);
  }
  if (!rows.length) wrap.append(el("p", { class: "empty", text: "(both sides are empty)" }));
  else wrap.append(table);
  const cutRows = Math.max(detail.output_count || 0, detail.reference_count || 0) - output.length;
  if (cutRows > 0) wrap.append(el("p", { class: "muted", text: "... " + cutRows + " more messages not kept in the report" }));
  const problems = detail.problems || [];
  if (problems.length) {
    const list = el("ol", { class: "problems" });
    for (const problem of problems) {
      const item = el("li", { text: problem.text });
      if (problem.args && problem.args.length) {
        const args = el("table", { class: "args" });
        for (const diff of problem.args) {
          args.append(el("tr", {}, el("td", { text: diff.path }),
            el("td", { class: "expected", text: "expected" in diff ? "- " + value(diff.expected) : "(absent)" }),
            el("td", { class: "actual", text: "actual" in diff ? "+ " + value(diff.actual) : "(absent)" })));
        }
        item.append(args);
      }
      list.append(item);
    }
    wrap.append(el("h3", { text: "problems" }), list);
  }
  return wrap;
}

// ------------------------------------------------------------------ graph paths

const BOX_W = 132, NODE_H = 18, GAP = 14, LANE_GAP = 26, LEFT = 78;

function label(text) {
  return text.length > 18 ? text.slice(0, 17) + "…" : text;
}

function lane(group, steps, y, marked, name) {
  group.append(svg("text", { x: 4, y: y + 14, fill: "#6b6b6b" }, name));
  let height = NODE_H + 8;
  steps.forEach(([nodes, grouped], i) => {
    const x = LEFT + i * (BOX_W + GAP);
    const h = nodes.length * NODE_H + 8;
    height = Math.max(height, h);
    const box = svg("rect", { x, y, width: BOX_W, height: h, rx: 4,
      fill: marked.has(i) ? "#fdecea" : grouped ? "#eef3fb" : "#f7f7f7",
      stroke: marked.has(i) ? "#b3261e" : "#9aa5b5", "stroke-width": marked.has(i) ? 2 : 1,
      class: "superstep" + (marked.has(i) ? " marked" : "") });
    const title = svg("title", {}, "superstep " + i + (grouped ? " (ran together): " : ": ") + nodes.join(", "));
    box.append(title);
    group.append(box);
    nodes.forEach((node, n) => {
      group.append(svg("text", { x: x + 6, y: y + 4 + (n + 1) * NODE_H - 5, class: "node" }, label(node)));
    });
    if (i > 0) {
      group.append(svg("line", { x1: x - GAP, y1: y + 12, x2: x, y2: y + 12, stroke: "#9aa5b5" }));
    }
  });
  return height;
}

function graphView(detail) {
  const wrap = el("div", { class: "graph-view" });
  const output = detail.output || [], reference = detail.reference || [];
  const invocations = Math.min(Math.max(output.length, reference.length), 20);
  for (let inv = 0; inv < invocations; inv++) {
    const out = output[inv] || [], ref = reference[inv] || [];
    const outMarks = new Set(), refMarks = new Set();
    for (const d of detail.differences || []) {
      if (d.invocation !== inv && d.invocation !== null) continue;
      (d.output_at || []).forEach((i) => outMarks.add(i));
      (d.reference_at || []).forEach((i) => refMarks.add(i));
    }
    const steps = Math.max(out.length, ref.length, 1);
    const image = svg("svg", { class: "graph", role: "img" });
    image.append(svg("title", {}, "invocation " + inv + ": output path above, reference below"));
    const group = svg("g", {});
    image.append(group);
    const top = lane(group, out, 4, outMarks, "output");
    const bottom = lane(group, ref, 4 + top + LANE_GAP, refMarks, "reference");
    const width = LEFT + steps * (BOX_W + GAP);
    const height = 4 + top + LANE_GAP + bottom + 6;
    image.setAttribute("width", width);
    image.setAttribute("height", height);
    image.setAttribute("viewBox", "0 0 " + width + " " + height);
    wrap.append(el("h3", { text: "invocation " + inv + " (boxes are supersteps; stacked names ran together)" }), image);
  }
  if (Math.max(output.length, reference.length) > invocations) {
    wrap.append(el("p", { class: "muted", text: "... more invocations in the text below" }));
  }
  const differences = detail.differences || [];
  if (differences.length) {
    const list = el("ol", { class: "problems" });
    differences.forEach((d) => list.append(el("li", { text: d.text })));
    wrap.append(el("h3", { text: "differences" }), list);
  }
  return wrap;
}

// ------------------------------------------------------------------ replayed model calls

function replayView(detail) {
  const wrap = el("div", { class: "replay-view" });
  const where = [detail.cassette, detail.model ? "model " + detail.model : null,
    detail.call !== null && detail.call !== undefined ? "call " + detail.call : null];
  wrap.append(el("h3", { text: "cassette: " + where.filter(Boolean).join(", ") }));
  if (detail.command) wrap.append(el("p", {}, "record it again: ", el("code", { text: detail.command })));
  const differences = detail.differences || [];
  if (differences.length) {
    const table = el("table", { class: "args" },
      el("tr", {}, el("th", { text: "where" }), el("th", { text: "recorded" }), el("th", { text: "now" })));
    for (const d of differences) {
      table.append(el("tr", {}, el("td", { text: d.where }),
        el("td", { class: "expected", text: d.recorded }), el("td", { class: "actual", text: d.live })));
    }
    wrap.append(table);
  }
  for (const [model, call] of detail.unused || []) {
    wrap.append(el("p", { class: "warning", text: "recorded but not made: call " + call + " to " + model }));
  }
  if (detail.live || detail.recorded) {
    const table = el("table", { class: "side" },
      el("tr", {}, el("th", { text: "the request now" }), el("th", { text: "the recorded request" })),
      el("tr", {}, el("td", { text: JSON.stringify(detail.live, null, 2) }),
        el("td", { text: JSON.stringify(detail.recorded, null, 2) })));
    wrap.append(table);
  }
  return wrap;
}

// ------------------------------------------------------------------ one evaluation

function attemptsView(record) {
  const text = attemptsLabel(record);
  if (text === null) return null;
  const box = el("div", { class: "attempts" }, el("b", { text: "attempts: " }));
  for (const passed of record.attempt_passed || []) {
    box.append(el("span", { class: passed ? "ok" : "no", title: passed ? "passed" : "failed" }));
  }
  box.append(" " + text);
  if (record.pass_hat_k) {
    const parts = Object.entries(record.pass_hat_k).map(([k, v]) => "pass^" + k + " " + scoreLabel(v));
    box.append(el("div", { class: "muted", text: parts.join(" · ") }));
  }
  if (record.pass_at_k) {
    const parts = Object.entries(record.pass_at_k).map(([k, v]) => "pass@" + k + " " + scoreLabel(v));
    box.append(el("div", { class: "muted", text: parts.join(" · ") }));
  }
  return box;
}

function bodyOf(record) {
  const body = el("div", { class: "body" });
  const kind = kindOf(record);
  if (record.comment) {
    const lead = kind === "judge" ? "reasoning: " : "";
    body.append(el("p", { class: "comment", text: lead + record.comment }));
  }
  const facts = [];
  if (typeof record.score === "number") {
    facts.push("score " + scoreLabel(record.score) +
      (record.min_score !== undefined ? " (needs " + scoreLabel(record.min_score) + ")" : ""));
  }
  if (record.duration_s !== undefined) facts.push((record.duration_s * 1000).toFixed(1) + " ms");
  if (record.origin) facts.push(record.origin);
  if (record.reference_file) facts.push("reference " + record.reference_file);
  if (record.judge && record.judge.model) facts.push("judge " + record.judge.model);
  if (facts.length) body.append(el("p", { class: "muted", text: facts.join(" · ") }));
  const attempts = attemptsView(record);
  if (attempts) body.append(attempts);
  const detail = record.detail || {};
  if (detail.view === "trajectory") body.append(trajectoryView(detail));
  else if (detail.view === "graph") body.append(graphView(detail));
  else if (detail.view === "replay") body.append(replayView(detail));
  if (record.diff) body.append(el("h3", { text: "explanation" }), el("pre", { text: record.diff }));
  if (record.error) body.append(el("pre", { class: "warning", text: record.error }));
  const settings = el("details", {}, el("summary", { text: "settings" }),
    el("pre", { text: JSON.stringify(record.settings || {}, null, 2) }));
  body.append(settings);
  return body;
}

function evaluationNode(record, number) {
  const state = outcome(record);
  const node = el("div", { class: "evaluation", "data-outcome": state, "data-kind": kindOf(record),
    "data-mode": record.mode || "-", "data-test": record.nodeid, id: "evaluation-" + number });
  const head = el("div", { class: "head", role: "button", tabindex: 0 },
    el("span", { class: "badge " + state, text: state.toUpperCase() }),
    el("span", { class: "nodeid", text: record.index ? record.nodeid + " [" + record.index + "]" : record.nodeid }),
    el("span", { text: record.key }),
    el("span", { class: "muted", text: modeLabel(record) }),
    el("span", { text: attemptsLabel(record) ? (record.passed_attempts || 0) + "/" + record.attempts : scoreLabel(record.score) }));
  node.append(head);
  let body = null;
  const toggle = () => {
    if (body === null) { body = bodyOf(record); node.append(body); return; }
    body.hidden = !body.hidden;
  };
  head.addEventListener("click", toggle);
  head.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggle(); } });
  return node;
}

function options(select, values) {
  for (const v of values) select.append(el("option", { value: v, text: v }));
}

function listSection(doc) {
  const records = (doc.results || []).slice();
  records.sort((a, b) => Number(!!a.passed) - Number(!!b.passed));
  const section = el("section", { id: "evaluations" }, el("h2", { text: "Evaluations" }));
  const status = el("select", { id: "filter-outcome" });
  options(status, ["all", "failed", "passed"]);
  const kind = el("select", { id: "filter-kind" });
  options(kind, ["all", ...new Set(records.map(kindOf))]);
  const mode = el("select", { id: "filter-mode" });
  options(mode, ["all", ...new Set(records.map((r) => r.mode || "-"))]);
  const search = el("input", { id: "filter-test", type: "search", placeholder: "test id contains…" });
  const count = el("span", { id: "count" });
  section.append(el("div", { class: "filters" },
    el("label", {}, "show ", status), el("label", {}, "kind ", kind),
    el("label", {}, "mode ", mode), el("label", {}, search), count));
  const list = el("div", { id: "list" });
  const nodes = records.map((record, i) => evaluationNode(record, i));
  list.append(...nodes);
  section.append(list);
  const apply = () => {
    const wanted = search.value.toLowerCase();
    let shown = 0;
    for (const node of nodes) {
      const state = node.dataset.outcome;
      const hide = (status.value === "failed" && state === "pass") ||
        (status.value === "passed" && state !== "pass") ||
        (kind.value !== "all" && node.dataset.kind !== kind.value) ||
        (mode.value !== "all" && node.dataset.mode !== mode.value) ||
        (wanted && !node.dataset.test.toLowerCase().includes(wanted));
      node.hidden = hide;
      if (!hide) shown++;
    }
    count.textContent = shown + " of " + nodes.length + " shown";
  };
  for (const control of [status, kind, mode]) control.addEventListener("change", apply);
  search.addEventListener("input", apply);
  apply();
  if (!records.length) list.append(el("p", { class: "empty", text: "No evaluations in this report." }));
  return section;
}

loadReport().then((doc) => {
  const app = document.getElementById("app");
  app.append(summarySection(doc));
  if (doc.baseline) app.append(baselineSection(doc.baseline));
  app.append(listSection(doc));
  const first = document.querySelector(".evaluation[data-outcome=fail] .head, .evaluation[data-outcome=error] .head");
  if (first) first.click(); // the first failure opens by itself
  document.getElementById("status").textContent = (doc.results || []).length + " evaluations";
  performance.mark("drawn");
  document.body.dataset.ready = "true";
}).catch((error) => {
  document.getElementById("status").textContent = "The report could not be read: " + error;
  document.body.dataset.ready = "error";
  console.error(error);
});

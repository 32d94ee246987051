/**
 * The pages of `deno task view`, rendered on the server as HTML (Hono's
 * `html` template, every value escaped): the run list, a run's page
 * (training curves drawn by uPlot in the browser, the evaluation table,
 * figures and compare intervals), and the episode browser. The small client
 * script (`view_client.js`) only draws the curves and refreshes the parts
 * that change while a run trains.
 *
 * @module
 */
import { html, raw } from "hono/html";
import type { EpisodeRecord } from "../episodes/episode_record.ts";
import { agentLabel, type RunRef, type RunSummary } from "./run_index.ts";
import { episodePairHtml } from "./episode_html.ts";

// a template (hono/html escapes every value that is not itself a template or raw); String() of it is its text
const h = (strings: TemplateStringsArray, ...values: unknown[]): string => html(strings, ...values) as string;

const PAGE_CSS = `
body{font:14px/1.5 system-ui,sans-serif;color:#1f2328;margin:0 auto;padding:12px 20px 40px;max-width:1400px}
nav{display:flex;gap:16px;align-items:baseline;border-bottom:1px solid #d0d7de;padding-bottom:6px;margin-bottom:12px}
nav .brand{font-weight:700}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
h1{font-size:20px;margin:6px 0}h2{font-size:16px;margin:18px 0 6px;border-bottom:1px solid #eaeef2;padding-bottom:2px}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:#57606a}.stage{font-weight:600}.live{color:#1a7f37}.problem{color:#cf222e}
.headline span{display:inline-block;margin-right:12px;white-space:nowrap}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:12px}
.chart{border:1px solid #d0d7de;border-radius:6px;padding:6px;min-height:240px}
.chart h3{font-size:13px;margin:0 0 4px}
.figures{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}.figures img{max-width:min(100%,640px);border:1px solid #eaeef2}
form.pick{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:end;margin:8px 0 12px}
form.pick label{display:flex;flex-direction:column;font-size:12px;color:#57606a}
form.pick select{font-size:13px;max-width:420px}
.others{font-size:12px;margin:0 0 10px}.others a{margin-right:10px}
.message{border:1px solid #d0d7de;border-radius:6px;padding:10px 14px;background:#f6f8fa}
`;

/** A whole page: title, the runs link, the style, uPlot's files and the client script. */
function page(title: string, body: string): string {
  return String(h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · mempo-lab</title>
<link rel="stylesheet" href="/assets/uplot.css">
<style>${raw(PAGE_CSS)}</style>
<script src="/assets/uplot.js"></script>
<script src="/assets/view.js" defer></script>
</head><body>
<nav><span class="brand">mempo-lab view</span><a href="/">runs</a></nav>
${raw(body)}
</body></html>`);
}

/**
 * The page of a missing thing (an unknown run, stage or episode): its message and a way back.
 *
 * Source: this package.
 *
 * @param message What is missing.
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notFoundPage } from "./pages.ts";
 *
 * assert.match(notFoundPage("No run <x>"), /<p class="message">No run &lt;x&gt;<\/p>/);
 * ```
 */
export function notFoundPage(message: string): string {
  return page("not found", h`<h1>Not found</h1><p class="message">${message}</p><p><a href="/">all runs</a></p>`);
}

const ago = (ms: number) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 90 ? `${s} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : new Date(ms).toISOString().slice(0, 16);
};

/**
 * The run list's table (a fragment the page refreshes): name, preset, stage and progress, headline numbers, last write.
 *
 * Source: this package.
 *
 * @param runs The runs' summaries.
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runsTable } from "./pages.ts";
 *
 * const text = runsTable([{ name: "quick", preset: "quick", algorithms: [], stage: "mempo", progress: "step 3/8", done: false, updated: 0, headline: [{ label: "MemPO reward", value: "0.50" }] }]);
 * assert.match(text, /<a href="\/runs\/quick">quick<\/a>/);
 * assert.match(text, /MemPO reward <b>0.50<\/b>/);
 * ```
 */
export function runsTable(runs: readonly RunSummary[]): string {
  if (runs.length === 0) {
    return String(h`<p class="message">No run here yet: <code>deno task train --preset quick</code> writes one.</p>`);
  }
  return String(
    h`<table class="runs"><thead><tr><th>run</th><th>preset</th><th>stage</th><th>progress</th><th>headline</th><th>last write</th></tr></thead><tbody>
${
      runs.map((r) =>
        h`<tr data-run="${r.name}"><td><a href="/runs/${encodeURIComponent(r.name)}">${r.name}</a></td><td>${
          r.preset ?? "–"
        }</td><td class="stage ${r.done ? "" : "live"}">${r.stage}</td><td>${r.progress}</td><td class="headline">${
          r.headline.map((x) => h`<span>${x.label} <b>${x.value}</b></span>`)
        }${r.problem ? h`<span class="problem">${r.problem}</span>` : ""}</td><td class="muted">${
          r.updated ? ago(r.updated) : "–"
        }</td></tr>`
      )
    }
</tbody></table>`,
  );
}

/**
 * The run list page: every run under the viewer's directory ({@linkcode runsTable}, refreshed every few seconds).
 *
 * Source: this package.
 *
 * @param root The directory shown (for the heading).
 * @param runs The runs' summaries.
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runsPage } from "./pages.ts";
 *
 * assert.match(runsPage("runs", []), /<div id="runs" data-poll="\/fragments\/runs">/);
 * ```
 */
export function runsPage(root: string, runs: readonly RunSummary[]): string {
  return page(
    "runs",
    h`<h1>Runs under <code>${root}</code></h1>
<div id="runs" data-poll="/fragments/runs">${raw(runsTable(runs))}</div>`,
  );
}

/**
 * A run's status line (a fragment the run page refreshes while it trains).
 *
 * Source: this package.
 *
 * @param s The run's summary.
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statusLine } from "./pages.ts";
 *
 * const text = statusLine({ name: "q", algorithms: [], stage: "sft", progress: "step 4/100", done: false, updated: 0, headline: [] });
 * assert.match(text, /data-done="false"/);
 * assert.match(text, /sft<\/span> step 4\/100/);
 * ```
 */
export function statusLine(s: RunSummary): string {
  return String(
    h`<p class="status" data-done="${String(s.done)}">preset <b>${s.preset ?? "–"}</b> · stage <span class="stage ${
      s.done ? "" : "live"
    }">${s.stage}</span> ${s.progress}${s.done ? "" : " (updating)"} · ${
      s.headline.map((x) => h`<span>${x.label} <b>${x.value}</b></span> `)
    }${s.problem ? h`<span class="problem">${s.problem}</span>` : ""}</p>`,
  );
}

interface EvalRowLike {
  agent: string;
  contextPolicy: string;
  objectives: number;
  em: number;
  f1: number;
  totalTokens: number;
  peakContext: number;
  formatValid: number;
  episodes: number;
}

function evalTable(evaluation: Record<string, unknown> | undefined): string {
  const rows = (Array.isArray(evaluation?.rows) ? evaluation.rows : []) as EvalRowLike[];
  if (rows.length === 0) return h`<p class="muted">Not evaluated yet.</p>`;
  const sizes = [...new Set(rows.map((r) => r.objectives))].sort((a, b) => a - b);
  const agents = [...new Set(rows.map(agentLabel))];
  return h`<table class="eval"><thead><tr><th>agent</th>${
    sizes.map((k) => h`<th>${k} obj: EM / F1 / tokens / peak</th>`)
  }</tr></thead><tbody>${
    agents.map((a) =>
      h`<tr><td>${a}</td>${
        sizes.map((k) => {
          const r = rows.find((x) => agentLabel(x) === a && x.objectives === k);
          return r
            ? h`<td class="num" title="${(100 * r.formatValid).toFixed(0)}% format-valid, ${r.episodes} episodes">${
              r.em.toFixed(2)
            } / ${r.f1.toFixed(2)} / ${Math.round(r.totalTokens)} / ${Math.round(r.peakContext)}</td>`
            : h`<td>–</td>`;
        })
      }</tr>`
    )
  }</tbody></table>`;
}

function compareTable(compare: Record<string, unknown> | undefined): string {
  const paired = (Array.isArray(compare?.paired) ? compare.paired : []) as {
    objectives: number;
    meanDiff: number;
    ciLow: number;
    ciHigh: number;
    pairs: number;
    seeds: number;
    excludesZero: boolean;
  }[];
  if (paired.length === 0) {
    return h`<p class="muted">No comparison: <code>deno task compare RUN --seeds 0,1,2</code> writes one.</p>`;
  }
  return h`<p>MemPO − GRPO EM, paired bootstrap 95 % interval over seeds and questions (compare.json):</p>
<table class="compare"><thead><tr><th>objectives</th><th>mean difference</th><th>interval</th><th>excludes 0</th><th>pairs (seeds)</th></tr></thead><tbody>${
    paired.map((p) =>
      h`<tr><td>${p.objectives}</td><td class="num">${p.meanDiff.toFixed(3)}</td><td class="num">[${
        p.ciLow.toFixed(3)
      }, ${p.ciHigh.toFixed(3)}]</td><td>${
        p.excludesZero ? "yes" : "no"
      }</td><td class="num">${p.pairs} (${p.seeds})</td></tr>`
    )
  }</tbody></table>`;
}

/** What {@linkcode runPage} shows of a run. */
export interface RunPageData {
  /** The run. */
  run: RunRef;
  /** Its summary. */
  summary: RunSummary;
  /** The chart ids and titles with points now (the client fetches their data). */
  charts: readonly { id: string; title: string }[];
  /** eval.json, when written. */
  evaluation?: Record<string, unknown>;
  /** compare.json, when written. */
  compare?: Record<string, unknown>;
  /** The figures (SVG files) in the run's folder. */
  figures: readonly string[];
  /** The run's episode logs (`eval`, algorithms). */
  stages: readonly string[];
}

/**
 * A run's page: status (refreshed while it trains), training curves (uPlot,
 * fed by `/api/runs/NAME/curves`, polled until the run is done), the
 * evaluation table, the figures, the compare intervals and the links to its
 * episode logs.
 *
 * Source: this package.
 *
 * @param d The run's data.
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runPage } from "./pages.ts";
 *
 * const summary = { name: "q", algorithms: ["mempo"], stage: "mempo", progress: "step 2/8", done: false, updated: 0, headline: [] };
 * const text = runPage({ run: { name: "q", rel: "q", dir: "runs/q" }, summary, charts: [{ id: "reward", title: "Mean outcome reward" }], figures: ["eval_f1.svg"], stages: ["mempo"] });
 * assert.match(text, /<div class="chart" id="chart-reward" data-points="0"><h3>Mean outcome reward<\/h3><\/div>/);
 * assert.match(text, /<img src="\/files\/q\/eval_f1.svg" alt="eval_f1.svg">/);
 * assert.match(text, /href="\/runs\/q\/episodes\?stage=mempo"/);
 * ```
 */
export function runPage(d: RunPageData): string {
  const name = encodeURIComponent(d.run.name);
  const files = (f: string) =>
    `/files/${d.run.rel ? `${d.run.rel.split("/").map(encodeURIComponent).join("/")}/` : ""}${f}`;
  return page(
    d.run.name,
    h`<h1>${d.run.name}</h1>
<div id="status" data-poll="/fragments/runs/${name}/status">${raw(statusLine(d.summary))}</div>
<p>Episodes: ${
      d.stages.length === 0
        ? h`<span class="muted">none kept yet</span>`
        : d.stages.map((s) => h`<a href="/runs/${name}/episodes?stage=${s}">${s}</a> `)
    } · files: <a href="${files("eval.md")}">eval.md</a> <a href="${
      files("metrics.jsonl")
    }">metrics.jsonl</a> <a href="${files("config.json")}">config.json</a></p>
<h2>Training</h2>
<div class="charts" data-curves="/api/runs/${name}/curves" data-live="${String(!d.summary.done)}">${
      d.charts.map((c) => h`<div class="chart" id="chart-${c.id}" data-points="0"><h3>${c.title}</h3></div>`)
    }</div>
${d.charts.length === 0 ? h`<p class="muted">No training rows yet.</p>` : ""}
<h2>Evaluation</h2>
${raw(evalTable(d.evaluation))}
<div class="figures">${d.figures.map((f) => h`<img src="${files(f)}" alt="${f}">`)}</div>
<h2>Compare</h2>
${raw(compareTable(d.compare))}`,
  );
}

/** What the episode browser was asked for (the form's fields). */
export interface EpisodePick {
  /** `eval` or an RL algorithm. */
  stage: string;
  /** The test set (eval) or RL step (RL). */
  size?: number;
  /** The question (eval) or the episode (RL). */
  index?: number;
  /** The agent (eval: `MemPO (memory)`). */
  agent?: string;
  /** What to show beside it: an agent (eval) or an episode index (RL); `none`. */
  vs?: string;
}

/** The choices and the episodes picked, as {@linkcode episodesPage} shows them. */
export interface EpisodeBrowser {
  /** The run. */
  run: RunRef;
  /** The run's episode logs. */
  stages: readonly string[];
  /** The pick, every field filled. */
  pick: Required<EpisodePick>;
  /** Test sets (eval) or RL steps (1-based in labels) present. */
  sizes: readonly number[];
  /** The questions or episodes of the picked size or step: value and label. */
  indices: readonly { value: number; label: string }[];
  /** Agents (eval) of the picked question, with their reward. */
  agents: readonly { label: string; reward: number }[];
  /** The episode shown. */
  left: EpisodeRecord;
  /** The episode beside it. */
  right?: EpisodeRecord;
}

const option = (value: string | number, label: string, picked: string | number) =>
  h`<option value="${value}"${raw(String(value) === String(picked) ? " selected" : "")}>${label}</option>`;

/**
 * The episode browser: a form (stage; test set or step; question or
 * episode; agent; what to show beside it) that reloads on each change, the
 * agents' rewards on the question, and the two episodes side by side
 * ({@linkcode episodePairHtml}).
 *
 * Source: this package.
 *
 * @param b The choices and the episodes.
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodesPage } from "./pages.ts";
 *
 * const left = { v: 1, stage: "eval", index: 0, agent: "SFT", contextPolicy: "memory", objectives: 2, question: "q ?", header: "", gold: [["a"], ["b"]], answer: "a ; b", em: [1, 1], f1: [1, 1], formatValid: true, reward: 1, totalTokens: 9, peakContext: 9, turns: [] };
 * const text = episodesPage({
 *   run: { name: "q", rel: "q", dir: "runs/q" }, stages: ["eval"], pick: { stage: "eval", size: 2, index: 0, agent: "SFT (memory)", vs: "none" },
 *   sizes: [1, 2], indices: [{ value: 0, label: "1: q ?" }], agents: [{ label: "SFT (memory)", reward: 1 }], left: left as never,
 * });
 * assert.match(text, /<option value="2" selected>2 objectives<\/option>/);
 * assert.match(text, /<dd class="gold">a ; b<\/dd>/);
 * ```
 */
export function episodesPage(b: EpisodeBrowser): string {
  const isEval = b.pick.stage === "eval";
  const name = encodeURIComponent(b.run.name);
  const vsChoices = isEval
    ? b.agents.map((a) => option(a.label, a.label, b.pick.vs))
    : b.indices.filter((i) => i.value !== b.pick.index).map((i) => option(i.value, i.label, b.pick.vs));
  const others = isEval
    ? h`<p class="others">On this question: ${
      b.agents.map((a) =>
        h`<a href="/runs/${name}/episodes?stage=eval&size=${b.pick.size}&index=${b.pick.index}&agent=${
          encodeURIComponent(a.label)
        }&vs=${encodeURIComponent(b.pick.vs)}">${a.label} ${a.reward === 1 ? "✓" : "✗"}</a>`
      )
    }</p>`
    : "";
  return page(
    `${b.run.name} episodes`,
    h`<h1><a href="/runs/${name}">${b.run.name}</a> · episodes</h1>
<form class="pick" method="get" action="/runs/${name}/episodes">
<label>log<select name="stage">${b.stages.map((s) => option(s, s, b.pick.stage))}</select></label>
<label>${isEval ? "test set" : "RL step"}<select name="size">${
      b.sizes.map((k) => option(k, isEval ? `${k} objectives` : `step ${k + 1}`, b.pick.size))
    }</select></label>
<label>${isEval ? "question" : "episode"}<select name="index">${
      b.indices.map((i) => option(i.value, i.label, b.pick.index))
    }</select></label>
${
      isEval
        ? h`<label>agent<select name="agent">${
          b.agents.map((a) => option(a.label, a.label, b.pick.agent))
        }</select></label>`
        : ""
    }
<label>beside it<select name="vs">${option("none", "nothing", b.pick.vs)}${vsChoices}</select></label>
<noscript><button>show</button></noscript>
</form>
${others}
${raw(episodePairHtml(b.left, b.right))}`,
  );
}

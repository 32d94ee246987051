import assert from "node:assert/strict";
import { episodesPage, notFoundPage, runPage, runsPage, runsTable, statusLine } from "../../lib/view/pages.ts";
import type { RunSummary } from "../../lib/view/run_index.ts";

const summary: RunSummary = {
  name: "q<1>",
  preset: "quick",
  algorithms: ["mempo"],
  stage: "mempo",
  progress: "step 3/8",
  done: false,
  updated: Date.now() - 30_000,
  headline: [{ label: "MemPO reward", value: "0.50 (step 3)" }],
};

Deno.test("runsTable() and runsPage(): a row per run, names escaped and linked, the table refreshed from its fragment", () => {
  const table = runsTable([summary, {
    ...summary,
    name: "done",
    stage: "done",
    done: true,
    problem: "x.jsonl line 2 is not JSON",
  }]);
  assert.equal(table.match(/<tr data-run=/g)!.length, 2);
  assert.match(table, /<a href="\/runs\/q%3C1%3E">q&lt;1&gt;<\/a>/);
  assert.match(table, /<td class="muted">30 s ago<\/td>/);
  assert.match(table, /<span class="problem">x.jsonl line 2 is not JSON<\/span>/);
  assert.match(runsTable([]), /No run here yet: <code>deno task train --preset quick<\/code>/);
  const page = runsPage("runs", [summary]);
  assert.match(page, /^<!doctype html>/);
  assert.match(page, /<script src="\/assets\/uplot.js"><\/script>/);
  assert.match(page, /<h1>Runs under <code>runs<\/code><\/h1>/);
});

Deno.test("statusLine() and notFoundPage()", () => {
  assert.match(statusLine(summary), /data-done="false"/);
  assert.match(statusLine(summary), /stage <span class="stage live">mempo<\/span> step 3\/8 \(updating\)/);
  assert.match(statusLine({ ...summary, done: true }), /data-done="true"[\s\S]*step 3\/8 ·/);
  assert.match(notFoundPage('No run "x"'), /<h1>Not found<\/h1><p class="message">No run &quot;x&quot;<\/p>/);
});

Deno.test("runPage(): live charts, the evaluation table by agent and test set, figures, compare intervals", () => {
  const row = (agent: string, contextPolicy: string, objectives: number, em: number) => ({
    agent,
    contextPolicy,
    objectives,
    em,
    f1: em,
    totalTokens: 100.4,
    peakContext: 50.6,
    formatValid: 0.5,
    episodes: 4,
  });
  const page = runPage({
    run: { name: "q", rel: "q", dir: "runs/q" },
    summary: { ...summary, name: "q", done: true },
    charts: [{ id: "reward", title: "Mean outcome reward" }],
    evaluation: { rows: [row("SFT", "full", 1, 0.5), row("SFT", "full", 2, 0.25), row("MemPO", "memory", 2, 0.75)] },
    compare: {
      paired: [{
        objectives: 2,
        meanDiff: 0.0625,
        ciLow: -0.01,
        ciHigh: 0.125,
        pairs: 96,
        seeds: 3,
        excludesZero: false,
      }],
    },
    figures: ["eval_f1.svg"],
    stages: ["eval", "mempo"],
  });
  assert.match(page, /data-curves="\/api\/runs\/q\/curves" data-live="false"/);
  assert.match(
    page,
    /<tr><td>SFT \(full\)<\/td><td class="num" title="50% format-valid, 4 episodes">0.50 \/ 0.50 \/ 100 \/ 51<\/td>/,
  );
  assert.match(
    page,
    /<tr><td>MemPO \(memory\)<\/td><td>–<\/td><td class="num"[^>]*>0.75 \/ 0.75 \/ 100 \/ 51<\/td><\/tr>/,
  );
  assert.match(
    page,
    /<td>2<\/td><td class="num">0.063<\/td><td class="num">\[-0.010, 0.125\]<\/td><td>no<\/td><td class="num">96 \(3\)<\/td>/,
  );
  assert.match(
    page,
    /<a href="\/runs\/q\/episodes\?stage=eval">eval<\/a> <a href="\/runs\/q\/episodes\?stage=mempo">mempo<\/a>/,
  );
  const bare = runPage({
    run: { name: "q", rel: "", dir: "q" },
    summary,
    charts: [],
    figures: ["eval_f1.svg"],
    stages: [],
  });
  assert.match(bare, /Not evaluated yet/);
  assert.match(bare, /No comparison/);
  assert.match(bare, /<img src="\/files\/eval_f1.svg"/, "a run served as the directory itself");
});

Deno.test("episodesPage(): an RL step's form lists steps and episodes, and what can go beside the episode", () => {
  const left = {
    v: 1,
    stage: "mempo",
    step: 1,
    index: 0,
    group: 0,
    agent: "MemPO",
    contextPolicy: "memory" as const,
    objectives: 1,
    question: "q ?",
    header: "",
    gold: [["a"]],
    answer: "a",
    em: [1],
    f1: [1],
    formatValid: true,
    reward: 1,
    totalTokens: 1,
    peakContext: 1,
    turns: [],
  };
  const page = episodesPage({
    run: { name: "q", rel: "q", dir: "runs/q" },
    stages: ["eval", "mempo"],
    pick: { stage: "mempo", size: 1, index: 0, agent: "MemPO", vs: "2" },
    sizes: [0, 1],
    indices: [{ value: 0, label: "1 (question 0, 1 obj): reward 1" }, {
      value: 2,
      label: "3 (question 0, 1 obj): reward 0",
    }],
    agents: [],
    left,
    right: { ...left, index: 2, reward: 0 },
  });
  assert.match(page, /<option value="1" selected>step 2<\/option>/);
  assert.match(
    page,
    /<select name="vs"><option value="none">nothing<\/option><option value="2" selected>3 \(question 0/,
  );
  assert.doesNotMatch(page, /name="agent"/);
  assert.equal(page.match(/class="mempo-episode"/g)!.length, 2);
});

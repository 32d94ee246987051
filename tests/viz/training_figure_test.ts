import assert from "node:assert/strict";
import { trainingFigure } from "../../lib/viz/training_figure.ts";
import { seriesStyle } from "../../lib/viz/series_style.ts";
import { all, type El, frameBox, overlaps, panelBox, parseSvg, pathRuns, texts } from "./_svg.ts";

// as metrics.jsonl has them: SFT rows first, then each algorithm's steps (GRPO before PPO here)
const STEPS = 6;
const rows = [
  ...[0, 1, 2].map((step) => ({ stage: "sft", step, "sft/loss": 3 - step })),
  ...["grpo", "ppo"].flatMap((stage, a) =>
    Array.from({ length: STEPS }, (_, step) => ({
      stage,
      step,
      "rollout/reward_mean": (step + a) / 10,
      "kl/ref": 0.01 * step,
      "loss/policy": -0.1 * a,
      "time/step": 1,
    }))
  ),
];
const labels = { ppo: "PPO", grpo: "GRPO", mempo: "MemPO" };
const charts = (svg: string) => all(parseSvg(svg), 'svg[data-panel="chart"]');
const runsOf = (g: El) => pathRuns(g.querySelector("path")!.getAttribute("d")!);

Deno.test("trainingFigure(): a panel per metric, in each one line per algorithm with a point per step", () => {
  const svg = trainingFigure(rows, { labels }).svg;
  const panels = charts(svg);
  assert.equal(panels.length, 3);
  for (const panel of panels) {
    const lines = all(panel, 'g[aria-label="line"]');
    // legend order is the agents' (PPO before GRPO), whatever the rows' order
    assert.deepEqual(lines.map((g) => g.getAttribute("stroke")), [seriesStyle(2).color, seriesStyle(3).color]);
    assert.deepEqual(lines.map((g) => runsOf(g).map((r) => r.length)), [[STEPS], [STEPS]]);
  }
  assert.deepEqual(texts(parseSvg(svg).querySelector('svg[data-panel="legend"]')!, "text"), ["PPO", "GRPO"]);
  // the reward panel's line climbs by 0.1 per step: y pixel steps are equal and upward
  const ys = runsOf(all(panels[0]!, 'g[aria-label="line"]')[0]!)[0]!.map((p) => p[1]);
  const dy = ys.slice(1).map((y, i) => y - ys[i]!);
  assert.ok(dy.every((v) => Math.abs(v - dy[0]!) < 1e-3 && v < 0), `${dy}`);
});

Deno.test("trainingFigure(): y labels carry units; integer step ticks; the legend beside the panels", () => {
  const root = parseSvg(trainingFigure(rows, { labels, xLabel: "RL step (count)" }).svg);
  const panels = all(root, 'svg[data-panel="chart"]');
  assert.deepEqual(panels.map((p) => texts(p, 'g[aria-label="y-axis label"] text')[0]), [
    "outcome reward (mean per episode, 0–1)",
    "KL to reference (nats per token)",
    "policy loss (per token)",
  ]);
  assert.deepEqual(texts(panels[2]!, 'g[aria-label="x-axis label"] text'), ["RL step (count)"]);
  assert.deepEqual(texts(panels[2]!, 'g[aria-label="x-axis tick label"] text'), ["0", "1", "2", "3", "4", "5"]);
  // the reward axis is the reward's range, 0–1
  assert.deepEqual(texts(panels[0]!, 'g[aria-label="y-axis tick label"] text').at(-1), "1.0");
  const legend = panelBox(root.querySelector('svg[data-panel="legend"]')!);
  for (const p of panels) assert.equal(overlaps(frameBox(p), legend), false);
});

Deno.test("trainingFigure(): one metric, chosen stages; a step without the metric breaks the line", () => {
  const gap = rows.map((r) => (r.stage === "ppo" && r.step === 2 ? { stage: "ppo", step: 2 } : r));
  const svg = trainingFigure(gap, { stages: ["ppo"], metrics: ["rollout/reward_mean"], labels }).svg;
  const [panel] = charts(svg);
  const lines = all(panel!, 'g[aria-label="line"]');
  assert.deepEqual(lines.map((g) => runsOf(g).map((r) => r.length)), [[2, 3]]);
  const sft = trainingFigure(rows, { stages: ["sft"], metrics: ["sft/loss"], labels: { sft: "SFT" } }).svg;
  assert.equal(all(charts(sft)[0]!, 'g[aria-label="line"]')[0]!.getAttribute("stroke"), seriesStyle(1).color);
  assert.equal(trainingFigure(rows, { labels }).svg, trainingFigure([...rows].reverse(), { labels }).svg);
});

Deno.test("trainingFigure(): refuses a stage no row has and an empty metric list, naming them", () => {
  assert.throws(
    () => trainingFigure(rows, { stages: ["mempo"] }),
    /stages has "mempo", which no row has \(stages in the rows: sft, grpo, ppo\)/,
  );
  assert.throws(() => trainingFigure(rows, { metrics: [] }), /metrics is empty/);
});

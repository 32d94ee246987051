import assert from "node:assert/strict";
import type { EvalRow } from "../../lib/eval/evaluate.ts";
import { RL_STEP_AXIS, runFigures } from "../../lib/pipeline/run_figures.ts";
import { writeEvalFiles } from "../../lib/pipeline/evaluate_run.ts";
import { evalFigure } from "../../lib/viz/eval_figure.ts";
import { trainingFigure } from "../../lib/viz/training_figure.ts";
import { all, parseSvg, texts } from "../viz/_svg.ts";

const row = (agent: string, contextPolicy: "full" | "memory", objectives: number): EvalRow => ({
  agent,
  contextPolicy,
  objectives,
  em: 0.5,
  f1: 0.6 / objectives,
  formatValid: 1,
  reward: 0.25,
  totalTokens: 100 * objectives,
  peakContext: 60,
  episodes: 4,
});
const rows = [1, 2, 4].flatMap((k) => [row("SFT", "full", k), row("PPO", "memory", k), row("MemPO", "memory", k)]);
const metrics = [
  { stage: "sft", step: 0, "sft/loss": 2 },
  ...["mempo", "ppo"].flatMap((stage) =>
    [0, 1, 2].map((step) => ({ stage, step, "rollout/reward_mean": step / 4, "kl/ref": 0.01, "loss/policy": 0.1 }))
  ),
];

Deno.test("runFigures(): eval.md's figures are the library's figures, byte for byte", () => {
  const figures = runFigures(rows, metrics);
  assert.equal(figures["eval_f1.svg"]!.svg, evalFigure(rows, "f1").svg);
  assert.equal(figures["eval_tokens.svg"]!.svg, evalFigure(rows, "totalTokens").svg);
  const labels = { ppo: "PPO", grpo: "GRPO", mempo: "MemPO" };
  const common = { stages: ["mempo", "ppo"], labels, xLabel: RL_STEP_AXIS };
  assert.equal(
    figures["train_curves.svg"]!.svg,
    trainingFigure(metrics, { ...common, title: "Reward, reference KL and policy loss" }).svg,
  );
  const reward = figures["train_reward.svg"]!.svg;
  assert.equal(reward.match(/data-panel="chart"/g)?.length, 1);
  assert.ok(reward.includes(">outcome reward (mean per episode, 0–1)</text>"));
  // an agent looks the same in both: the legend rows of MemPO and PPO have one colour in the eval and training figures
  const legendColors = (svg: string) => {
    const legend = parseSvg(svg).querySelector('svg[data-panel="legend"]')!;
    const names = texts(legend, "text").map((t) => t.replace(/ \(.*\)$/, ""));
    const colors = all(legend, 'g[aria-label="line"]').map((g) => g.getAttribute("stroke"));
    return Object.fromEntries(names.map((n, i) => [n, colors[i]]));
  };
  const evalColors = legendColors(figures["eval_f1.svg"]!.svg);
  const trainColors = legendColors(reward);
  assert.deepEqual(Object.keys(trainColors), ["PPO", "MemPO"]);
  for (const name of ["PPO", "MemPO"]) assert.equal(trainColors[name], evalColors[name], name);
  assert.equal(new Set(Object.values(evalColors)).size, 3);
});

Deno.test("runFigures(): train_signal.svg draws the equal-reward share and the entropy, only when the RL steps log the share", () => {
  assert.ok(!("train_signal.svg" in runFigures(rows, metrics)));
  const logged = metrics.map((r) =>
    r.stage === "sft" ? r : { ...r, "grpo/frac_zero_std": r.step / 2, "policy/entropy": 0.05 }
  );
  const svg = runFigures(rows, logged)["train_signal.svg"]!.svg;
  assert.equal(
    svg,
    trainingFigure(logged, {
      stages: ["mempo", "ppo"],
      labels: { ppo: "PPO", grpo: "GRPO", mempo: "MemPO" },
      xLabel: RL_STEP_AXIS,
      metrics: ["grpo/frac_zero_std", "policy/entropy"],
      title: "Groups with equal rewards and entropy of the sampled tokens",
    }).svg,
  );
  assert.equal(svg.match(/data-panel="chart"/g)?.length, 2);
  assert.ok(svg.includes(">groups with equal rewards (share, 0–1)</text>"));
  assert.ok(svg.includes(">entropy (nats per token)</text>"));
  // only an SFT row logs it: no RL step does, no figure
  const sftOnly = metrics.map((r) => r.stage === "sft" ? { ...r, "grpo/frac_zero_std": 1 } : r);
  assert.ok(!("train_signal.svg" in runFigures(rows, sftOnly)));
});

Deno.test("writeEvalFiles(): writes every figure and eval.md shows them; no training figures without RL rows", async () => {
  const dir = await Deno.makeTempDir();
  await writeEvalFiles(dir, { rows, timings: { eval: 1 }, metrics });
  const md = await Deno.readTextFile(`${dir}/eval.md`);
  for (const name of ["eval_f1.svg", "eval_tokens.svg", "train_reward.svg", "train_curves.svg"]) {
    assert.equal(await Deno.readTextFile(`${dir}/${name}`), runFigures(rows, metrics)[name]!.svg, name);
  }
  assert.ok(md.includes("![F1 vs objectives](eval_f1.svg)") && md.includes("](train_curves.svg)"));
  const bare = await Deno.makeTempDir();
  await writeEvalFiles(bare, { rows, timings: {} });
  assert.deepEqual([...Deno.readDirSync(bare)].map((e) => e.name).sort(), [
    "eval.json",
    "eval.md",
    "eval_f1.svg",
    "eval_tokens.svg",
  ]);
  assert.ok(!(await Deno.readTextFile(`${bare}/eval.md`)).includes("## Training"));
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(bare, { recursive: true });
});

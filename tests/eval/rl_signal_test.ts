import assert from "node:assert/strict";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { RL_SIGNAL_METRICS, rlSignal, rlSignalMarkdown } from "../../lib/eval/rl_signal.ts";
import { writeEvalFiles } from "../../lib/pipeline/evaluate_run.ts";

// 10 GRPO steps logged out of order, a step without entropy, a NaN reward, and rows of other stages.
const grpo: MetricsRow[] = Array.from({ length: 10 }, (_, step) => ({
  stage: "grpo",
  step,
  "rollout/reward_mean": step === 7 ? NaN : step / 10,
  "grpo/frac_zero_std": step % 2,
  ...(step === 0 ? {} : { "policy/entropy": 0.1 * step }),
  "kl/ref": 0.002 * step,
  "ppo/clip_fraction": step === 9 ? 0.02 : 0,
})).reverse();
const metrics: MetricsRow[] = [
  { stage: "pretrain", step: 0, "sft/loss": 3 },
  { stage: "sft", step: 0, "sft/loss": 1 },
  ...grpo,
  { stage: "mempo", step: 0, "rollout/reward_mean": 1 },
  { stage: "mempo", step: 1, "rollout/reward_mean": 0 },
];

Deno.test("rlSignal(): quarters of ⌊q·n/4⌋ steps, each metric's mean over the quarter's rows that log it (a slow loop agrees)", () => {
  const rows = rlSignal(metrics, ["mempo", "grpo", "ppo"]);
  assert.deepEqual(rows.map((r) => [r.stage, r.steps]), [["mempo", 2], ["grpo", 10]]);
  const g = rows[1]!;
  // n = 10, 4 quarters: steps 0–1, 2–4, 5–6, 7–9
  assert.deepEqual(g.quarters, [[0, 1], [2, 4], [5, 6], [7, 9]]);
  // hand-computed
  assert.deepEqual(g.means.reward.map((v) => +v.toFixed(6)), [0.05, 0.3, 0.55, 0.85]); // step 7's NaN skipped: (0.8 + 0.9) / 2
  assert.deepEqual(g.means.equalShare.map((v) => +v.toFixed(6)), [0.5, 1 / 3, 0.5, 2 / 3].map((v) => +v.toFixed(6)));
  assert.deepEqual(g.means.entropy.map((v) => +v.toFixed(6)), [0.1, 0.3, 0.55, 0.8]); // step 0 logs none
  assert.deepEqual(g.means.clipFraction.map((v) => +v.toFixed(6)), [0, 0, 0, +(0.02 / 3).toFixed(6)]);
  // a slow loop over the same quarters
  for (const [name, key] of Object.entries(RL_SIGNAL_METRICS)) {
    g.quarters.forEach(([from, to], q) => {
      let sum = 0, count = 0;
      for (const r of metrics) {
        const v = r[key];
        if (r.stage !== "grpo" || Number(r.step) < from || Number(r.step) > to) continue;
        if (typeof v === "number" && Number.isFinite(v)) sum += v, count++;
      }
      assert.ok(Math.abs(g.means[name as keyof typeof RL_SIGNAL_METRICS][q]! - sum / count) < 1e-12, `${name} q${q}`);
    });
  }
  // fewer than four steps: one quarter per step
  assert.deepEqual(rows[0]!.quarters, [[0, 0], [1, 1]]);
  assert.deepEqual(rows[0]!.means.reward, [1, 0]);
  assert.ok(rows[0]!.means.entropy.every(Number.isNaN));
  assert.deepEqual(rlSignal(metrics, ["ppo"]), []);
  assert.deepEqual(rlSignal(metrics, ["grpo", "grpo"]), [g]); // a repeated stage counts once
});

Deno.test("rlSignalMarkdown(): one row per stage, the quarters in step order, – where a quarter logs nothing", () => {
  const md = rlSignalMarkdown(rlSignal(metrics, ["mempo", "grpo"]), { grpo: "GRPO" });
  assert.match(md, /^## What the RL updates had to work with\n/);
  assert.match(md, /\n\| mempo \| 2 \| 1\.00 0\.00 \| – – \| – – \| – – \| – – \|/);
  assert.match(
    md,
    /\n\| GRPO \| 10 \| 0\.05 0\.30 0\.55 0\.85 \| 50 % 33 % 50 % 67 % \| 0\.10 0\.30 0\.55 0\.80 \| 0\.001 0\.006 0\.011 0\.016 \| 0\.0 % 0\.0 % 0\.0 % 0\.7 % \|/,
  );
});

Deno.test("writeEvalFiles(): eval.json's rlSignal and eval.md's section come from the metrics; none without RL rows", async () => {
  const dir = await Deno.makeTempDir();
  await writeEvalFiles(dir, { rows: [], timings: {}, metrics });
  const json = JSON.parse(await Deno.readTextFile(`${dir}/eval.json`));
  assert.deepEqual(json.rlSignal.map((r: { stage: string }) => r.stage), ["grpo", "mempo"]);
  assert.deepEqual(json.rlSignal[0].quarters, [[0, 1], [2, 4], [5, 6], [7, 9]]);
  assert.equal(json.rlSignal[1].means.entropy[0], null); // NaN is written as null
  const md = await Deno.readTextFile(`${dir}/eval.md`);
  assert.match(md, /\| GRPO \| 10 \| 0\.05 0\.30 0\.55 0\.85 \|/);
  assert.match(md, /\| MemPO \| 2 \| 1\.00 0\.00 \|/);
  const bare = await Deno.makeTempDir();
  await writeEvalFiles(bare, { rows: [], timings: {}, metrics: metrics.slice(0, 2) });
  assert.equal(JSON.parse(await Deno.readTextFile(`${bare}/eval.json`)).rlSignal, undefined);
  assert.ok(!(await Deno.readTextFile(`${bare}/eval.md`)).includes("What the RL updates"));
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(bare, { recursive: true });
});

// sft.pretrainLoss: the induction warm-up ends when its loss says the head has formed, at sft.pretrainSteps at the
// earliest and sft.pretrainHorizon at the latest; a warm-up that has formed by pretrainSteps is the run without it.
import assert from "node:assert/strict";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { warmupFormed } from "../../lib/train/warmup_stop.ts";

const stageRows = async (dir: string, stage: string) =>
  (await Deno.readTextFile(`${dir}/metrics.jsonl`)).split("\n").filter(Boolean).map((l) => JSON.parse(l) as MetricsRow)
    .filter((r) => r.stage === stage).map((r) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith("time/")))
    );

Deno.test("config: sft.pretrainLoss needs a horizon past the warm-up's steps, and the default preset sets it", () => {
  assert.equal(resolveConfig("default").sft.pretrainLoss, 1);
  assert.equal(resolveConfig("quick").sft.pretrainLoss, undefined);
  assert.throws(
    () => resolveConfig("default", { sft: { pretrainHorizon: 450 } }),
    /sft\.pretrainHorizon must be > sft\.pretrainSteps \(450\) with sft\.pretrainLoss set, current value is 450/,
  );
  assert.throws(() => resolveConfig("default", { sft: { pretrainLoss: 0 } }), /sft\.pretrainLoss must be > 0/);
  // no warm-up at all: nothing to end, nothing refused
  assert.equal(resolveConfig("quick", { sft: { pretrainLoss: 1 } }).sft.pretrainSteps, 0);
});

Deno.test("pipeline: the warm-up stops at pretrainSteps once formed, runs to the horizon if never, and between by the rule", async () => {
  const dataDir = await Deno.makeTempDir();
  const quick = resolveConfig("quick");
  const config = (pretrainLoss?: number) =>
    resolveConfig("quick", {
      dataDir,
      model: "tiny", // the warm-up's 32 sequences a step, at a test's cost
      sft: {
        ...quick.sft,
        steps: 1,
        demos: 16,
        pretrainSteps: 24,
        pretrainHorizon: 48,
        ...(pretrainLoss === undefined ? {} : { pretrainLoss }),
      },
      rl: { ...quick.rl, algorithms: [] },
    });
  const run = async (pretrainLoss?: number) => {
    const outDir = await Deno.makeTempDir();
    assert.equal((await runPipeline({ config: config(pretrainLoss), outDir, evaluate: false })).completed, true);
    const rows = await stageRows(outDir, "pretrain");
    const weights = await Deno.readFile(`${outDir}/sft/policy.safetensors`);
    await Deno.remove(outDir, { recursive: true });
    return { rows, weights };
  };
  const unset = await run();
  const formed = await run(1e6); // every loss is below: it stops at pretrainSteps
  const never = await run(1e-9); // no loss is below: it runs to the horizon
  assert.equal(unset.rows.length, 24);
  assert.deepEqual(formed.rows, unset.rows);
  assert.deepEqual(formed.weights, unset.weights, "the same run to the bit");
  assert.equal(never.rows.length, 48);
  assert.deepEqual(never.rows.slice(0, 24), unset.rows, "the same first steps on the same cosine");
  // a threshold between: the first t ≥ 24 whose last 20 losses average below it, read off the full curve
  const losses = never.rows.map((r) => Number(r["sft/loss"]));
  const means = Array.from({ length: 25 }, (_, i) => 24 + i).map((t) =>
    losses.slice(t - 20, t).reduce((a, b) => a + b, 0) / 20
  );
  const threshold = [...means].sort((a, b) => a - b)[12]! + 1e-9;
  const expected = Array.from({ length: 25 }, (_, i) => 24 + i).find((t) =>
    warmupFormed(losses.slice(0, t), 24, threshold)
  );
  assert.ok(expected !== undefined && expected > 24 && expected < 48, `stop at ${expected}`);
  const between = await run(threshold);
  assert.equal(between.rows.length, expected);
  assert.deepEqual(between.rows, never.rows.slice(0, expected));
  await Deno.remove(dataDir, { recursive: true });
});

// sft.horizons and sft.drillFrom: a run trained to one step count, then continued (copy and resume with the total
// raised, the memory drill added for the last stretch), is the same run as one config that names the stages.
import assert from "node:assert/strict";
import { type ExperimentConfig, resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { cosineLr } from "../../lib/optim/schedule.ts";

const read = async (dir: string): Promise<MetricsRow[]> =>
  (await Deno.readTextFile(`${dir}/metrics.jsonl`)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
const sftRows = async (dir: string) =>
  (await read(dir)).filter((r) => r.stage === "sft").map((r) =>
    Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith("time/")))
  );

Deno.test("pipeline: sft.horizons and sft.drillFrom give, in one run, the steps of a run continued twice by resume", async () => {
  const dataDir = await Deno.makeTempDir();
  const quick = resolveConfig("quick");
  const stage = (sft: Partial<ExperimentConfig["sft"]>) =>
    resolveConfig("quick", {
      dataDir,
      sft: { ...quick.sft, warmupSteps: 1, demos: 16, ...sft },
      rl: { ...quick.rl, algorithms: [] },
    });

  // the lineage: 3 steps; continued to 5; continued to 8 with the drill added
  const lineage = await Deno.makeTempDir();
  assert.equal((await runPipeline({ config: stage({ steps: 3 }), outDir: lineage, evaluate: false })).completed, true);
  for (const sft of [{ steps: 5 }, { steps: 8, drillMix: 0.5 }]) {
    const record = `${lineage}/sft/config.json`;
    const json = JSON.parse(await Deno.readTextFile(record));
    json.state.done = false;
    await Deno.writeTextFile(record, JSON.stringify(json));
    const resumed = await runPipeline({ config: stage(sft), outDir: lineage, resume: true, evaluate: false });
    assert.equal(resumed.completed, true);
  }

  // the same in one config
  const staged = await Deno.makeTempDir();
  const one = stage({ steps: 8, horizons: [3, 5], drillMix: 0.5, drillFrom: 5 });
  assert.equal((await runPipeline({ config: one, outDir: staged, evaluate: false })).completed, true);

  const rows = await sftRows(staged);
  assert.equal(rows.length, 8);
  assert.deepEqual(rows, await sftRows(lineage), "every SFT step's loss, gradient norm, rate and tokens");
  assert.deepEqual(
    await Deno.readFile(`${staged}/sft/policy.safetensors`),
    await Deno.readFile(`${lineage}/sft/policy.safetensors`),
    "the same weights to the bit",
  );
  // the schedule rises back at each stage's start: a cosine ending at 3, one ending at 5, one ending at 8
  const { lr } = one.sft;
  assert.deepEqual(
    rows.map((r) => r["sft/lr"]),
    [cosineLr(0, 3, lr, 1), cosineLr(1, 3, lr, 1), cosineLr(2, 3, lr, 1), cosineLr(3, 5, lr, 1), cosineLr(4, 5, lr, 1)]
      .concat([5, 6, 7].map((t) => cosineLr(t, 8, lr, 1))),
  );
  assert.ok(Number(rows[5]!["sft/lr"]) > Number(rows[4]!["sft/lr"]), "the rate rises back at step 5");
  assert.notEqual(rows[3]!["sft/lr"], cosineLr(3, 8, lr, 1), "not one cosine to 8");

  // and the drill is absent before step 5: with it from the first step, the first steps draw other sequences
  const early = await Deno.makeTempDir();
  const drilledEarly = stage({ steps: 8, horizons: [3, 5], drillMix: 0.5 });
  assert.equal((await runPipeline({ config: drilledEarly, outDir: early, evaluate: false })).completed, true);
  const earlyRows = await sftRows(early);
  assert.notDeepEqual(earlyRows.slice(0, 5).map((r) => r["sft/loss"]), rows.slice(0, 5).map((r) => r["sft/loss"]));
  for (const dir of [dataDir, lineage, staged, early]) await Deno.remove(dir, { recursive: true });
});

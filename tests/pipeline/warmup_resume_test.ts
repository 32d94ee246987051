// The induction warm-up is checkpointed (SFT at step 0): a run stopped after it resumes without warming up again, to
// the same metrics as a run that was never stopped.
import assert from "node:assert/strict";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import { readCheckpointRecord } from "../../lib/model/checkpoint.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { cosineLr } from "../../lib/optim/schedule.ts";

const read = async (dir: string): Promise<MetricsRow[]> =>
  (await Deno.readTextFile(`${dir}/metrics.jsonl`)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
const strip = (rows: MetricsRow[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith("time/"))));

Deno.test("pipeline: a run stopped after the induction warm-up resumes from its checkpoint, to the same metrics", async () => {
  const config = resolveConfig("quick", {
    dataDir: await Deno.makeTempDir(),
    sft: { ...resolveConfig("quick").sft, pretrainSteps: 3, pretrainHorizon: 6, warmupSteps: 1, steps: 4, demos: 16 },
    rl: { ...resolveConfig("quick").rl, algorithms: [] },
  });
  const whole = await Deno.makeTempDir();
  assert.equal((await runPipeline({ config, outDir: whole, evaluate: false })).completed, true);

  const cut = await Deno.makeTempDir();
  // stopped as SFT's first step begins: the warm-up has run
  const first = await runPipeline({ config, outDir: cut, evaluate: false, shouldStop: () => true });
  assert.equal(first.completed, false);
  assert.deepEqual((await readCheckpointRecord(`${cut}/sft`))!.state.step, 0);
  assert.equal((await read(cut)).filter((r) => r.stage === "pretrain").length, 3);
  assert.equal((await read(cut)).filter((r) => r.stage === "sft").length, 0);
  // the warm-up's schedule runs to its horizon (6), not to its last step (3)
  const { lr, warmupSteps } = config.sft;
  assert.deepEqual(
    (await read(cut)).filter((r) => r.stage === "pretrain").map((r) => r["sft/lr"]),
    [0, 1, 2].map((t) => cosineLr(t, 6, lr, warmupSteps)),
  );
  assert.notEqual(cosineLr(2, 6, lr, warmupSteps), cosineLr(2, 3, lr, warmupSteps));

  let warmUps = 0;
  const resumed = await runPipeline({
    config,
    outDir: cut,
    resume: true,
    evaluate: false,
    onProgress: (e) => warmUps += e.stage === "pretrain" ? 1 : 0,
  });
  assert.equal(resumed.completed, true);
  assert.equal(warmUps, 0, "the resume does not warm up again");
  assert.deepEqual(strip(await read(cut)), strip(await read(whole)));
});

/**
 * Evaluates a saved run's checkpoints again, on its test sets or another
 * split: what `deno task eval` does, and what `deno task train --stage sft`
 * does on the validation sets once its SFT has finished.
 *
 * @module
 */
import type { Algorithm } from "../config/experiment.ts";
import { type DataSplit, splitDir } from "../data/build.ts";
import type { EvalRow } from "../eval/evaluate.ts";
import type { Model } from "../model/params.ts";
import { readRunConfig } from "../config/run_config.ts";
import { readMetricsLog, tornLineNote } from "../train/metrics_log.ts";
import { evaluateRun } from "./evaluate_run.ts";
import { trainingTimings } from "./eval_json.ts";
import { openRun } from "./open_run.ts";
import type { ProgressEvent } from "./_progress.ts";

/**
 * Every checkpoint of a run (SFT, then each of `rl.algorithms`) evaluated on
 * a split's sets with the run's `eval` config; the files go to
 * `splitDir(dir, split)` (`RUN` for the test sets, `RUN/valid`, `RUN/train`).
 * Each checkpoint is checked (hashes, architecture) before any is used.
 * The training curves come from the run's `metrics.jsonl`: a damaged line is
 * refused before any evaluation; a last line a kill cut short is dropped,
 * told to `onWarning` and written into eval.md / eval.json (`metricsNote`).
 *
 * Source: MemPO / MEM1 evaluation protocol; this package's `evaluateRun`.
 *
 * @param dir The run directory.
 * @param split The sets. @default "test"
 * @param onProgress Progress of the evaluation rows.
 * @param onWarning Told, before the evaluation, what was dropped from `metrics.jsonl` (`tornLineNote`).
 * @returns The rows and where the files are.
 *
 * @example A saved run of an untrained tiny SFT policy, evaluated again on its one test set (tests/pipeline/evaluate_saved_test.ts evaluates the validation sets)
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { saveCheckpoint } from "../model/checkpoint.ts";
 * import { evaluateSavedRun } from "./evaluate_saved.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * await buildData(dataDir, 0, { trainCount: 4, testCount: 1, testObjectives: [1], sizes: { distractors: 0 } });
 * const config = resolveConfig("quick", {
 *   dataDir, model: "tiny", rl: { algorithms: [] }, eval: { questions: 1, maxTurns: 2, maxTurnTokens: 12 },
 * });
 * const run = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${run}/config.json`, JSON.stringify(config));
 * await Deno.copyFile(`${dataDir}/tokenizer.json`, `${run}/tokenizer.json`);
 * await Deno.writeTextFile(`${run}/metrics.jsonl`, "");
 * const sft = createModel(modelPreset("tiny", (await loadData(dataDir)).tokenizer.size), { seed: 1 });
 * await saveCheckpoint(`${run}/sft`, { models: { policy: sft }, state: { step: 0, done: true } });
 * sft.dispose();
 * const { rows, outDir } = await evaluateSavedRun(run);
 * assert.equal(outDir, run);
 * // the teacher and the SFT policy under each context policy, on the 1-objective set: the teacher answers it
 * assert.deepEqual(rows.map((r) => `${r.agent} ${r.contextPolicy} ${r.objectives}`), ["Teacher full 1", "Teacher memory 1", "SFT full 1", "SFT memory 1"]);
 * assert.deepEqual(rows.filter((r) => r.agent === "Teacher").map((r) => r.em), [1, 1]);
 * assert.equal(JSON.parse(await Deno.readTextFile(`${run}/eval.json`)).rows.length, 4);
 * ```
 */
export async function evaluateSavedRun(
  dir: string,
  split: DataSplit = "test",
  onProgress?: (e: ProgressEvent) => void,
  onWarning?: (message: string) => void,
): Promise<{ rows: EvalRow[]; outDir: string }> {
  const outDir = splitDir(dir, split);
  const config = await readRunConfig(dir);
  // read before minutes of evaluation: a damaged log is refused here, a torn last line said now and in eval.md
  const log = await readMetricsLog(`${dir}/metrics.jsonl`);
  if (log.torn !== undefined) onWarning?.(tornLineNote(`${dir}/metrics.jsonl`, log));
  const metricsNote = log.torn === undefined ? undefined : tornLineNote("metrics.jsonl", log);
  // the training stages' times live in the eval.json this rewrites: kept (a damaged one is refused here too)
  const timings = await trainingTimings(outDir);
  const { data, load: loadStage } = await openRun(dir, config, { split });
  await Deno.mkdir(outDir, { recursive: true });
  const models: Model[] = [];
  const load = async (name: string) => {
    const m = await loadStage(name);
    models.push(m);
    return m;
  };
  const trained = new Map<Algorithm, Model>();
  try {
    const sft = await load("sft");
    for (const a of config.rl.algorithms) trained.set(a, await load(a));
    const { rows } = await evaluateRun({
      runDir: dir,
      outDir,
      config,
      data,
      sft,
      trained,
      metrics: log.rows,
      ...(metricsNote === undefined ? {} : { metricsNote }),
      timings,
      onProgress,
    });
    return { rows, outDir };
  } finally {
    for (const m of models) m.dispose(); // every model loaded, whatever throws
  }
}

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
 * @example See tests/pipeline/evaluate_saved_test.ts (a quick run evaluated on its validation sets).
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

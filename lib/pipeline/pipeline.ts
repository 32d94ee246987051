/**
 * `deno task train`: data → SFT → RL (each algorithm from the SFT weights) →
 * evaluation, every stage resumable from its checkpoint, everything seeded.
 *
 * Output in `outDir`: `config.json`, `tokenizer.json` (the data's, which the
 * checkpoints' token ids refer to), `metrics.jsonl` (one line per step),
 * `episodes/` (the RL steps' and the evaluation's episodes, `run_episodes.ts`), `sft/`, `<algorithm>/` checkpoints, `eval.json`, `eval.md`, and its figures
 * (`runFigures`): `eval_f1.svg`, `eval_tokens.svg`, `train_reward.svg`,
 * `train_curves.svg`, `train_signal.svg`.
 *
 * Nothing lost at a kill: each checkpoint is one unit (`saveCheckpoint`:
 * staged, then made current by renames); a metrics row is appended before the
 * checkpoint that covers it; a resume checks the tokenizer, every checkpoint
 * (hashes, architecture) and that `metrics.jsonl` holds exactly the rows its
 * checkpoints cover before it writes anything, then rewrites `config.json`
 * and `metrics.jsonl` through temporary files and renames. A refused resume
 * changes nothing; an accepted one recomputes the rows after each checkpoint,
 * identically.
 *
 * @module
 */
import { buildData, DATA_VERSION, type DataSplit, loadData, type LoadedData } from "../data/build.ts";
import { readJsonFile } from "../json_file.ts";
import type { Algorithm, ExperimentConfig } from "../config/experiment.ts";
import { withoutRetired } from "../config/run_config.ts";
import type { EvalRow } from "../eval/evaluate.ts";
import type { Model } from "../model/params.ts";
import type { MetricsRow } from "../train/metrics.ts";
import { readMetricsLog } from "../train/metrics_log.ts";
import { modelScope } from "./_model_scope.ts";
import type { ProgressEvent } from "./_progress.ts";
import { prepareRun } from "./_run_dir.ts";
import { rlStage } from "./_rl_stage.ts";
import { sftStage } from "./_sft_stage.ts";
import { metricsLine, type StageContext } from "./_stage_context.ts";
import { evaluateRun } from "./evaluate_run.ts";

export type { ProgressEvent } from "./_progress.ts";

/** Options of {@linkcode runPipeline}. */
export interface PipelineOptions {
  /** The experiment. */
  config: ExperimentConfig;
  /** Output directory (`runs/<name>`). */
  outDir: string;
  /**
   * Continue from the checkpoints in `outDir` (metrics after the last checkpoint are recomputed); every check runs
   * before anything is written, and a refusal is a `DataError`. @default false
   */
  resume?: boolean;
  /** Progress callback. */
  onProgress?: (e: ProgressEvent) => void;
  /** Polled between steps; true saves a checkpoint and stops (Ctrl-C). */
  shouldStop?: () => boolean;
  /** Stop after this many RL steps in total (tests of interruption). */
  stopAfterRlSteps?: number;
  /** Run the evaluation stage (false: stop after RL, as `deno task compare` does; it evaluates its own agents). @default true */
  evaluate?: boolean;
  /** Episodes of each RL step kept in `episodes/<algorithm>.jsonl` (the first groups; 0: none). @default all */
  rlEpisodes?: number;
}

/** What {@linkcode runPipeline} returns. */
export interface PipelineResult {
  /** False when stopped early (resumable). */
  completed: boolean;
  /** Evaluation rows (when evaluation ran). */
  eval?: EvalRow[];
  /** Seconds per stage. */
  timings: Record<string, number>;
}

/**
 * The run's data: `config.dataDir` when this generator (`DATA_VERSION`) wrote
 * it from exactly this seed and data config (a field retired since, at the
 * value the generator kept, is no difference: `withoutRetired`), else built
 * anew there. A
 * `manifest.json` that is not JSON is refused with a {@linkcode DataError}
 * naming it (nothing is built over it).
 *
 * Source: nanoGPT `data/<dataset>/prepare.py` (prepare the files once, train from them); verl reads preprocessed Parquet.
 *
 * @param config The experiment config (`dataDir`, `seed`, `data`).
 * @param options `split`: the sets loaded as its test sets (`loadData`). @default { split: "test" }
 * @returns The loaded data.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { ensureData } from "./pipeline.ts";
 *
 * const config = resolveConfig("quick", { dataDir: await Deno.makeTempDir() });
 * const written = async () => (await Deno.stat(`${config.dataDir}/manifest.json`)).mtime!.getTime();
 * await ensureData(config);
 * const first = await written();
 * await new Promise((r) => setTimeout(r, 20));
 * await ensureData(config); // same seed, data config and generator: reused
 * assert.equal(await written(), first);
 * const other = await ensureData({ ...config, data: { ...config.data, trainCount: 7 } }); // rebuilt
 * assert.equal(other.train.length, 7);
 * assert.ok(await written() > first);
 * // a manifest written while data.markers was an option, at the value the generator kept: reused; at another, rebuilt
 * const path = `${config.dataDir}/manifest.json`;
 * const manifest = JSON.parse(await Deno.readTextFile(path));
 * for (const markers of [false, true]) {
 *   await Deno.writeTextFile(path, JSON.stringify({ ...manifest, options: { ...manifest.options, markers } }));
 *   const before = await written();
 *   await new Promise((r) => setTimeout(r, 20));
 *   await ensureData({ ...config, data: { ...config.data, trainCount: 7 } });
 *   assert.equal(await written() > before, markers);
 * }
 * ```
 */
export async function ensureData(
  config: ExperimentConfig,
  options: { split?: DataSplit } = {},
): Promise<LoadedData> {
  const manifestPath = `${config.dataDir}/manifest.json`;
  const wanted = JSON.stringify({ seed: config.seed, ...config.data });
  // a manifest that is missing or for other options: the data is built anew (it is derived, seeded). One that is not
  // JSON was damaged after it was written (a build writes it last, atomically): refused, the directory left as it is
  const m = await readJsonFile(manifestPath, {
    optional: true,
    hint: "delete it, and the data is built again from the run's seed and data config",
  }) as { version?: unknown; options?: unknown } | null | undefined;
  // options retired since the data was written, at the value the generator kept (`markers: false`), are no difference
  const written = withoutRetired({ data: m?.options }).data;
  if (m?.version === DATA_VERSION && JSON.stringify(written) === wanted) {
    return await loadData(config.dataDir, options);
  }
  await buildData(config.dataDir, config.seed, { ...config.data });
  return await loadData(config.dataDir, options);
}

/**
 * Runs the whole pipeline (or resumes it).
 *
 * ```text
 * data (if missing) → tokenizer → SFT on teacher demonstrations → for algo in rl.algorithms: RL from SFT → evaluation
 * ```
 *
 * Source: MiniMind's curriculum (pretrain → SFT → RL); MemPO's SFT cold start then RL; MEM1's evaluation.
 * Reference: verl `main_ppo` / `RayPPOTrainer.fit`.
 *
 * @param options Config, output directory, resume, hooks.
 * @returns Completion flag, evaluation rows, timings.
 *
 * @example A toy run (tiny model, 2 SFT steps, 1 RL step, no evaluation: seconds; tests/pipeline/pipeline_test.ts runs
 * the quick preset whole).
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { runPipeline } from "./pipeline.ts";
 *
 * const config = resolveConfig("quick", {
 *   dataDir: await Deno.makeTempDir(),
 *   model: "tiny",
 *   data: { trainCount: 8, testCount: 1, testObjectives: [1] },
 *   sft: { steps: 2, demos: 8, batchSize: 4 },
 *   rl: { steps: 1, questionsPerStep: 1, groupSize: 2, maxTurns: 2, maxTurnTokens: 16, checkpointEvery: 1 },
 *   eval: { questions: 1, maxTurns: 2, maxTurnTokens: 16 },
 * });
 * const outDir = await Deno.makeTempDir();
 * const result = await runPipeline({ config, outDir, evaluate: false });
 * assert.equal(result.completed, true);
 * // one metrics row per step: 2 SFT steps, then 1 RL step of each algorithm (quick: MemPO, GRPO)
 * const rows = (await Deno.readTextFile(`${outDir}/metrics.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
 * assert.deepEqual(rows.map((r) => `${r.stage} ${r.step}`), ["sft 0", "sft 1", "mempo 0", "grpo 0"]);
 * ```
 */
export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const { config, outDir } = options;
  const progress = options.onProgress ?? (() => {});
  const timings: Record<string, number> = {};
  const clock = () => performance.now() / 1000;
  const scope = modelScope(); // every model a later stage reads (the SFT and RL policies), freed when the run ends
  try {
    let t = clock();
    const { data, modelConfig, plan } = await prepareRun(config, outDir, options.resume ?? false, () => {
      progress({ stage: "data", step: 0, total: 1, info: {} });
      return ensureData(config);
    });
    const log = (row: MetricsRow) => Deno.writeTextFile(`${outDir}/metrics.jsonl`, metricsLine(row), { append: true });
    const stop = () => options.shouldStop?.() ?? false;
    const ctx: StageContext = { config, outDir, data, modelConfig, log, progress, stop, scope };
    timings.data = clock() - t;
    t = clock();
    const sft = await sftStage(ctx, plan?.sft);
    if (sft === undefined) return { completed: false, timings };
    timings.sft = clock() - t;
    // each algorithm from the SFT weights, reference = frozen SFT
    const trained = new Map<Algorithm, Model>();
    const budget = { run: 0, max: options.stopAfterRlSteps ?? Infinity };
    for (const algorithm of config.rl.algorithms) {
      t = clock();
      const state = plan?.rl.get(algorithm);
      const policy = await rlStage(ctx, { algorithm, sft, state, rlEpisodes: options.rlEpisodes, budget });
      if (policy === undefined) return { completed: false, timings };
      trained.set(algorithm, policy);
      timings[algorithm] = clock() - t;
    }
    if (options.evaluate === false) {
      progress({ stage: "done", step: 1, total: 1, info: {} });
      return { completed: true, timings };
    }
    // a stop asked for during the last RL step is honoured here: every stage is checkpointed
    if (stop()) return { completed: false, timings };
    const metrics = (await readMetricsLog(`${outDir}/metrics.jsonl`)).rows; // the training curves
    const evaluated = await evaluateRun({
      runDir: outDir,
      config,
      data,
      sft,
      trained,
      metrics,
      timings,
      onProgress: progress,
    });
    progress({ stage: "done", step: 1, total: 1, info: {} });
    return { completed: true, eval: evaluated.rows, timings: evaluated.timings };
  } finally {
    scope.dispose();
  }
}

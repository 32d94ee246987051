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
import { setBackend } from "../backend/backend.ts";
import { buildData, DATA_VERSION, type DataSplit, loadData, type LoadedData } from "../data/build.ts";
import { modelPreset } from "../model/config.ts";
import { copyModel, createModel, type Model, trainableVariables } from "../model/params.ts";
import {
  type CheckpointRecord,
  loadCheckpoint,
  readCheckpointRecord,
  saveCheckpoint,
  settleCheckpoint,
  verifyCheckpoint,
} from "../model/checkpoint.ts";
import type { ModelConfig } from "../model/config.ts";
import { checkRunTokenizer } from "../data/run_tokenizer.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { pathExists } from "../path_exists.ts";
import { DataError } from "../errors.ts";
import { readJsonFile } from "../json_file.ts";
import { faultPoint } from "../fault_point.ts";
import { type AdamW, createAdamW } from "../optim/adamw.ts";
import { type Algorithm, type ExperimentConfig, sftSeed, teacherMemory } from "../config/experiment.ts";
import { gradientWorkersFor } from "../train/gradient_workers.ts";
import { sftDemoOptions, teacherDemonstrations } from "../train/demos.ts";
import { warmupFormed } from "../train/warmup_stop.ts";
import { WARMUP_STAGES } from "../stages.ts";
import { trainSft } from "../train/sft_trainer.ts";
import { type RlModels, rlModelsFromSft, rlOptimizer, rlStep, rlStepContext } from "../train/rl_trainer.ts";
import type { EvalRow } from "../eval/evaluate.ts";
import type { MetricsRow } from "../train/metrics.ts";
import { readMetricsLog } from "../train/metrics_log.ts";
import { demoContexts } from "../eval/longest_contexts.ts";
import { copyTaskSequences } from "../train/copy_task.ts";
import { recallTaskSequences } from "../train/recall_task.ts";
import type { LmSequence } from "../train/collate.ts";
import { memoryDrillSequences } from "../train/memory_drill.ts";
import { DEMO_CONTEXTS_STATE, evaluateRun } from "./evaluate_run.ts";
import { keepCoveredEpisodes, rlEpisodeLog } from "./run_episodes.ts";

/** A progress event (for a progress bar or a log line). */
export interface ProgressEvent {
  /** `data`, `sft`, `ppo`, `grpo`, `mempo`, `eval`, `done`. */
  stage: string;
  /** Steps done in the stage. */
  step: number;
  /** Steps in the stage. */
  total: number;
  /** Latest metrics of interest. */
  info: Record<string, number | string>;
}

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
 * it from exactly this seed and data config, else built anew there. A
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
  if (m?.version === DATA_VERSION && JSON.stringify(m.options) === wanted) {
    return await loadData(config.dataDir, options);
  }
  await buildData(config.dataDir, config.seed, { ...config.data });
  return await loadData(config.dataDir, options);
}

/** A checkpoint's progress, as its record's state holds it. */
interface StageState {
  step: number;
  done: boolean;
}

function stageState(dir: string, record: CheckpointRecord | undefined): StageState | undefined {
  if (record === undefined) return undefined;
  const { step, done } = record.state as Partial<StageState>;
  if (!Number.isInteger(step) || (step as number) < 0 || typeof done !== "boolean") {
    throw new DataError(
      `Cannot resume: ${dir}/config.json's state must be {step: integer ≥ 0, done: boolean}, current value is ${
        JSON.stringify(record.state)
      }`,
    );
  }
  return { step: step as number, done };
}

/** What a resume continues from, every check passed and nothing yet written. */
interface ResumePlan {
  sft: StageState | undefined;
  rl: Map<string, StageState | undefined>;
  /** The metrics rows the checkpoints cover (later rows are recomputed). */
  rows: MetricsRow[];
  /** The current text of `metrics.jsonl` (rewritten only when the kept rows differ). */
  metricsText: string;
}

/**
 * Every check of a resume, before it writes anything: the run's tokenizer is
 * the data's, each checkpoint is whole (sizes, hashes, architecture against
 * the weights and the config's), its state readable, and `metrics.jsonl`
 * holds exactly the rows its checkpoints cover (no step missing).
 */
async function planResume(
  outDir: string,
  config: ExperimentConfig,
  modelConfig: ModelConfig,
): Promise<ResumePlan> {
  await checkRunTokenizer(outDir, config.dataDir, "resume");
  const why = (e: unknown) => (e instanceof DataError ? e.message : String(e));
  const check = async (stage: string, optimizers: string[]) => {
    const dir = `${outDir}/${stage}`;
    let state: StageState | undefined;
    try {
      state = stageState(dir, await readCheckpointRecord(dir));
      if (state !== undefined) {
        // a finished stage is never trained again: its optimizer state is not needed
        await verifyCheckpoint(dir, { expect: modelConfig, optimizers: state.done ? [] : optimizers });
      }
    } catch (e) {
      throw new DataError(`Cannot resume ${outDir}: ${why(e)}`);
    }
    return state;
  };
  const sft = await check("sft", ["policy"]);
  const rl = new Map<string, StageState | undefined>();
  for (const a of config.rl.algorithms) {
    const state = await check(a, a === "ppo" ? ["policy", "critic"] : ["policy"]);
    if (state !== undefined && sft?.done !== true) {
      throw new DataError(`Cannot resume ${outDir}: ${a}/ holds a checkpoint but sft/ is not finished`);
    }
    rl.set(a, state);
  }
  const { rows: all, text } = await readMetricsLog(`${outDir}/metrics.jsonl`).catch((e: Error) => {
    throw e instanceof DataError ? new DataError(`Cannot resume ${outDir}: ${e.message}`) : e;
  });
  // the warm-ups end by their loss: an sft/ checkpoint covers every row they logged
  const warmups = new Set<string>(WARMUP_STAGES);
  const covered = (stage: string) => {
    if (warmups.has(stage)) return sft === undefined ? 0 : Infinity;
    return stage === "sft" ? sft?.step ?? 0 : rl.get(stage)?.step ?? 0;
  };
  const rows = all.filter((row) => Number(row.step) < covered(String(row.stage)));
  for (const stage of [...WARMUP_STAGES, "sft", ...config.rl.algorithms]) {
    const steps = rows.filter((r) => r.stage === stage).map((r) => Number(r.step));
    const want = warmups.has(stage) ? steps.length : covered(stage);
    if (steps.length !== want || steps.some((s, i) => s !== i)) {
      throw new DataError(
        `Cannot resume ${outDir}: metrics.jsonl holds ${steps.length} ${stage} rows before step ${want}, ` +
          `its checkpoint covers ${want} (rows lost or repeated); train the run again`,
      );
    }
  }
  return { sft, rl, rows, metricsText: text };
}

/** Removes the temporary files of writes that a kill cut short (hidden `.<name>.tmp-<pid>`). */
async function removeStaleTemporaries(dir: string): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && /^\..+\.tmp-\d+$/.test(e.name)) await Deno.remove(`${dir}/${e.name}`);
  }
}

// induction sequences per warm-up step
const PRETRAIN_BATCH_SIZE = 32;

const metricsLine = (row: MetricsRow) => JSON.stringify(row) + "\n";

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
  const { config, outDir, resume = false } = options;
  const progress = options.onProgress ?? (() => {});
  const stop = () => options.shouldStop?.() ?? false;
  const timings: Record<string, number> = {};
  const clock = () => performance.now() / 1000;
  await setBackend(config.backend);
  if (resume && !(await pathExists(outDir))) throw new DataError(`Cannot resume ${outDir}: no such directory`);
  const metricsPath = `${outDir}/metrics.jsonl`;
  const log = async (row: MetricsRow) => await Deno.writeTextFile(metricsPath, metricsLine(row), { append: true });

  // data (first: data that is refused leaves the run directory as it was, a run it would replace included)
  let t = clock();
  progress({ stage: "data", step: 0, total: 1, info: {} });
  const data = await ensureData(config);
  const modelConfig = modelPreset(config.model, data.tokenizer.size);
  const tokenizerText = await Deno.readTextFile(`${config.dataDir}/tokenizer.json`);
  // which steps each stage had checkpointed; a resume checks everything before it writes anything
  const plan = resume ? await planResume(outDir, config, modelConfig) : undefined;
  await Deno.mkdir(outDir, { recursive: true });
  if (!resume && (await pathExists(metricsPath))) {
    for (const e of Deno.readDirSync(outDir)) await Deno.remove(`${outDir}/${e.name}`, { recursive: true });
  }
  const configText = JSON.stringify(config, null, 2);
  if ((await Deno.readTextFile(`${outDir}/config.json`).catch(() => undefined)) !== configText) {
    await writeFileAtomic(`${outDir}/config.json`, configText, "resume-config");
  }
  // the checkpoints' token ids belong to this tokenizer: it travels with the run (`deno task eval` checks it)
  if ((await Deno.readTextFile(`${outDir}/tokenizer.json`).catch(() => undefined)) !== tokenizerText) {
    await writeFileAtomic(`${outDir}/tokenizer.json`, tokenizerText);
  }
  if (plan !== undefined) {
    // the rows after each stage's checkpoint are recomputed: drop them, in one rename
    const kept = plan.rows.map(metricsLine).join("");
    if (kept !== plan.metricsText) await writeFileAtomic(metricsPath, kept, "resume-metrics");
    // a checkpoint whose swap a kill interrupted is made current under its own name again
    for (const stage of ["sft", ...config.rl.algorithms]) await settleCheckpoint(`${outDir}/${stage}`);
    await removeStaleTemporaries(outDir);
    // the RL episodes after each checkpoint are sampled again, as the metrics rows are
    await keepCoveredEpisodes(outDir, config.rl.algorithms, (a) => plan.rl.get(a)?.step ?? 0);
  }
  timings.data = clock() - t;
  const sftState = plan?.sft;
  const rlStates = plan?.rl ?? new Map<string, StageState | undefined>();

  // SFT
  t = clock();
  // the SFT stage's draws (initialisation, warm-up, mixed sequences, drills, batches): sft.seed, else the run's
  const seedSft = sftSeed(config);
  let sft: Model;
  if (sftState?.done) {
    sft = (await loadCheckpoint(`${outDir}/sft`, { expect: modelConfig, trainable: false })).models.policy!;
  } else {
    let optimizer: AdamW;
    let startStep = 0;
    if (sftState !== undefined) {
      const ck = await loadCheckpoint(`${outDir}/sft`, {
        expect: modelConfig,
        optimizers: { policy: (m) => createAdamW(trainableVariables(m), { lr: config.sft.lr }) },
      });
      sft = ck.models.policy!;
      optimizer = ck.optimizers.policy!;
      startStep = sftState.step;
    } else {
      sft = createModel(modelConfig, { seed: seedSft, name: "sft" });
      optimizer = createAdamW(trainableVariables(sft), { lr: config.sft.lr });
    }
    const { sequences: demos, episodes, policies } = await teacherDemonstrations(
      data,
      sftDemoOptions(config, modelConfig.maxPositions),
    );
    // their longest contexts, which the evaluation reports, travel in the checkpoint's state (no second run of them)
    const longest = demoContexts(episodes, policies);
    // induction sequences mixed into SFT keep the copying circuit the warm-up formed
    const mix = Math.round((config.sft.inductionMix ?? 0) * demos.length);
    const drills = Math.round((config.sft.drillMix ?? 0) * demos.length);
    const undrilled = [
      ...demos,
      ...(mix > 0 ? copyTaskSequences(data.tokenizer, { count: mix, seed: seedSft + 29 }) : []),
    ];
    // the state memory's list operations on random names, at lengths the 1-4-objective demonstrations lack; they
    // join the pool at sft.drillFrom (default: the first step)
    const drilled = [
      ...undrilled,
      ...(drills > 0
        ? memoryDrillSequences(data.tokenizer, data.corpus.map((d) => d.id), {
          count: drills,
          seed: seedSft + 31,
          bare: teacherMemory(config) === "state-relations-bare", // the teacher's list style
        })
        : []),
    ];
    // induction warm-up: copying random word sequences forms the circuit that copies names (once: a checkpoint of the
    // stage, at SFT step 0, follows it)
    const pretrainSteps = config.sft.pretrainSteps ?? 0;
    const recallSteps = config.sft.recallSteps ?? 0;
    let step = startStep;
    // MEMPO_SFT_WORKERS (default: the cores): the steps' micro-batches on gradient workers, one core each (the same
    // numbers as on this thread)
    const workers = step < config.sft.steps || ((pretrainSteps > 0 || recallSteps > 0) && sftState === undefined)
      ? gradientWorkersFor()
      : undefined;
    try {
      if ((pretrainSteps > 0 || recallSteps > 0) && sftState === undefined) {
        // each warm-up goes on past its minimum, to its horizon at most, until its loss says the skill has formed
        const warmup = async (
          stage: "pretrain" | "recall",
          sequences: LmSequence[],
          minSteps: number,
          horizon: number,
          threshold: number | undefined,
        ) => {
          const losses: number[] = [];
          await trainSft({
            model: sft,
            optimizer,
            sequences,
            // the cosine runs to the horizon (default: the warm-up's last step)
            config: {
              ...config.sft,
              steps: horizon,
              batchSize: PRETRAIN_BATCH_SIZE,
              horizons: [],
            },
            endStep: threshold === undefined ? minSteps : horizon,
            ...(threshold === undefined ? {} : { shouldStop: () => warmupFormed(losses, minSteps, threshold) }),
            seed: seedSft + (stage === "pretrain" ? 17 : 19),
            padId: data.tokenizer.padId,
            workers,
            onStep: async (r) => {
              losses.push(r.loss);
              await log({
                stage,
                step: r.step,
                "sft/loss": r.loss,
                "sft/lr": r.lr,
                "sft/tokens": r.tokens,
                "time/step": r.seconds,
              });
              // past the minimum (a loss threshold) the count runs to the horizon
              progress({
                stage,
                step: r.step + 1,
                total: r.step < minSteps ? minSteps : horizon,
                info: { loss: r.loss },
              });
            },
          });
        };
        // induction: copying random word sequences forms the circuit that copies names
        if (pretrainSteps > 0) {
          await warmup(
            "pretrain",
            copyTaskSequences(data.tokenizer, { count: 8192, seed: seedSft }),
            pretrainSteps,
            config.sft.pretrainHorizon ?? pretrainSteps,
            config.sft.pretrainLoss,
          );
        }
        // recall: a fact found by its (subject, relation) pair, the read of a document
        if (recallSteps > 0) {
          await warmup(
            "recall",
            recallTaskSequences(data.tokenizer, { count: 8192, seed: seedSft + 37 }),
            recallSteps,
            config.sft.recallHorizon ?? recallSteps,
            config.sft.recallLoss,
          );
        }
        // a kill during SFT's first steps resumes from here, not from before the warm-up
        await saveCheckpoint(`${outDir}/sft`, {
          models: { policy: sft },
          optimizers: { policy: optimizer },
          state: { step: 0, done: config.sft.steps === 0, [DEMO_CONTEXTS_STATE]: longest },
        });
      }
      const every = Math.max(10, Math.ceil(config.sft.steps / 5));
      while (step < config.sft.steps && !stop()) {
        const drillFrom = config.sft.drillFrom ?? 0;
        // a stretch never spans drillFrom: the steps before it draw from the pool without the drills
        const end = Math.min(config.sft.steps, step + every, step < drillFrom ? drillFrom : Infinity);
        await trainSft({
          model: sft,
          optimizer,
          sequences: step < drillFrom ? undrilled : drilled,
          config: config.sft,
          seed: seedSft,
          padId: data.tokenizer.padId,
          startStep: step,
          endStep: end,
          shouldStop: stop,
          workers,
          onStep: async (r) => {
            step = r.step + 1;
            await log({
              stage: "sft",
              step: r.step,
              "sft/loss": r.loss,
              "sft/grad_norm": r.gradNorm,
              "sft/lr": r.lr,
              "sft/tokens": r.tokens,
              "train/skipped": r.skipped ? 1 : 0,
              "time/step": r.seconds,
            });
            progress({ stage: "sft", step: r.step + 1, total: config.sft.steps, info: { loss: r.loss } });
          },
        });
        await saveCheckpoint(`${outDir}/sft`, {
          models: { policy: sft },
          optimizers: { policy: optimizer },
          state: { step, done: step >= config.sft.steps, [DEMO_CONTEXTS_STATE]: longest },
        });
      }
    } finally {
      workers?.close();
    }
    optimizer.dispose();
    if (step < config.sft.steps) {
      sft.dispose();
      return { completed: false, timings };
    }
  }
  timings.sft = clock() - t;

  // RL: each algorithm from the SFT weights, reference = frozen SFT
  let rlStepsRun = 0;
  const trained = new Map<Algorithm, Model>();
  for (const algorithm of config.rl.algorithms) {
    t = clock();
    const dir = `${outDir}/${algorithm}`;
    const state = rlStates.get(algorithm);
    if (state?.done) {
      trained.set(algorithm, (await loadCheckpoint(dir, { expect: modelConfig, trainable: false })).models.policy!);
      timings[algorithm] = clock() - t;
      continue;
    }
    let models: RlModels;
    let step = 0;
    if (state !== undefined) {
      const policyOpt = (m: Model) => rlOptimizer(m, config.rl.lr);
      const ck = await loadCheckpoint(dir, {
        expect: modelConfig,
        optimizers: algorithm === "ppo"
          ? { policy: policyOpt, critic: (m) => rlOptimizer(m, config.rl.criticLr) }
          : { policy: policyOpt },
      });
      models = {
        policy: ck.models.policy!,
        optimizer: ck.optimizers.policy!,
        reference: copyModel(sft, { name: "ref" }),
        critic: ck.models.critic,
        criticOptimizer: ck.optimizers.critic,
      };
      step = state.step;
    } else models = rlModelsFromSft(sft, algorithm, config);
    const { policy, optimizer, reference, critic, criticOptimizer } = models;
    const ctx = {
      // MEMPO_SFT_WORKERS (default: the cores): the update's reference pass on gradient workers (the same numbers)
      ...rlStepContext(config, data, algorithm, models, gradientWorkersFor()),
      onEpisodes: rlEpisodeLog(outDir, algorithm, data, config, options.rlEpisodes),
    };
    const save = () =>
      saveCheckpoint(dir, {
        models: critic ? { policy, critic } : { policy },
        optimizers: critic && criticOptimizer ? { policy: optimizer, critic: criticOptimizer } : { policy: optimizer },
        state: { step, done: step >= config.rl.steps },
      });
    try {
      while (step < config.rl.steps) {
        if (stop() || (options.stopAfterRlSteps !== undefined && rlStepsRun >= options.stopAfterRlSteps)) {
          await save();
          reference.dispose();
          policy.dispose();
          critic?.dispose();
          optimizer.dispose();
          criticOptimizer?.dispose();
          sft.dispose();
          for (const m of trained.values()) m.dispose();
          return { completed: false, timings };
        }
        const row = await rlStep(ctx, step);
        await log({ stage: algorithm, step, ...row });
        faultPoint("rl-step-logged");
        progress({
          stage: algorithm,
          step: step + 1,
          total: config.rl.steps,
          info: { reward: row["rollout/reward_mean"]!, em: row["rollout/em"]! },
        });
        step += 1;
        rlStepsRun += 1;
        if (step % config.rl.checkpointEvery === 0 || step === config.rl.steps) await save();
      }
    } finally {
      ctx.workers?.close(); // open workers keep the process alive
    }
    reference.dispose();
    critic?.dispose();
    optimizer.dispose();
    criticOptimizer?.dispose();
    trained.set(algorithm, policy);
    timings[algorithm] = clock() - t;
  }

  if (options.evaluate === false) {
    sft.dispose();
    for (const m of trained.values()) m.dispose();
    progress({ stage: "done", step: 1, total: 1, info: {} });
    return { completed: true, timings };
  }

  // evaluation (a stop asked for during the last RL step is honoured here: every stage is checkpointed)
  if (stop()) {
    sft.dispose();
    for (const m of trained.values()) m.dispose();
    return { completed: false, timings };
  }
  let metrics: MetricsRow[]; // the training curves
  try {
    metrics = (await readMetricsLog(metricsPath)).rows;
  } catch (e) {
    sft.dispose();
    for (const m of trained.values()) m.dispose();
    throw e;
  }
  // evaluateRun owns the models from here (disposed whatever happens)
  const { rows, timings: all } = await evaluateRun({
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
  return { completed: true, eval: rows, timings: all };
}

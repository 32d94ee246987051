/**
 * `deno task train`: data → SFT → RL (each algorithm from the SFT weights) →
 * evaluation, every stage resumable from its checkpoint, everything seeded.
 *
 * Output in `outDir`: `config.json`, `tokenizer.json` (the data's, which the
 * checkpoints' token ids refer to), `metrics.jsonl` (one line per step),
 * `sft/`, `<algorithm>/` checkpoints, `eval.json`, `eval.md`, and its figures
 * (`runFigures`): `eval_f1.svg`, `eval_tokens.svg`, `train_reward.svg`,
 * `train_curves.svg`.
 *
 * @module
 */
import { setBackend } from "../backend/backend.ts";
import { buildData, DATA_VERSION, loadData, type LoadedData } from "../data/build.ts";
import { modelPreset } from "../model/config.ts";
import { copyModel, createModel, type Model, trainableVariables } from "../model/params.ts";
import { loadCheckpoint, saveCheckpoint } from "../model/checkpoint.ts";
import { type AdamW, createAdamW } from "../optim/adamw.ts";
import type { Algorithm, ExperimentConfig } from "../config/experiment.ts";
import { sftDemoOptions, teacherDemonstrations } from "../train/demos.ts";
import { trainSft } from "../train/sft_trainer.ts";
import { rlStep } from "../train/rl_trainer.ts";
import { evalMarkdown, type EvalRow, evaluateAgents, runAgents } from "../eval/evaluate.ts";
import type { MetricsRow } from "../train/metrics.ts";
import { researchCheck, researchCheckMarkdown } from "../eval/research_check.ts";
import { type CopyDiagnostic, copyDiagnosticMarkdown, copyDiagnostics } from "../diagnostics/copy_diagnostic.ts";
import { runFigures } from "./run_figures.ts";
import {
  equalRewardGroups,
  equalRewardGroupsMarkdown,
  type EqualRewardGroupsRow,
  equalRewardOptions,
} from "../eval/equal_reward_groups.ts";
import {
  type LongestContextRow,
  longestContexts,
  longestContextsMarkdown,
  trainingContexts,
} from "../eval/longest_contexts.ts";
import { inductionSequences } from "../train/copy_task.ts";
import { unseenTestWords } from "../data/coverage.ts";

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
  /** Continue from the checkpoints in `outDir` (metrics after the last checkpoint are recomputed). @default false */
  resume?: boolean;
  /** Progress callback. */
  onProgress?: (e: ProgressEvent) => void;
  /** Polled between steps; true saves a checkpoint and stops (Ctrl-C). */
  shouldStop?: () => boolean;
  /** Stop after this many RL steps in total (tests of interruption). */
  stopAfterRlSteps?: number;
  /** Run the evaluation stage (false: stop after RL, as `deno task compare` does; it evaluates its own agents). @default true */
  evaluate?: boolean;
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

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/**
 * Checks that a run's checkpoints and a data directory share one tokenizer:
 * the run's `tokenizer.json` (written when it started) must equal the data's,
 * or its token ids would be read as other words. A run saved before runs kept
 * their tokenizer has none and is not checked.
 *
 * Source: Hugging Face `save_pretrained` (a checkpoint ships with its tokenizer files).
 *
 * @param runDir The run directory.
 * @param dataDir The data directory it is about to use.
 * @param action What is refused on a mismatch (for the message).
 * @returns The data's `tokenizer.json` text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkRunTokenizer } from "./pipeline.ts";
 *
 * const run = await Deno.makeTempDir();
 * const data = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${data}/tokenizer.json`, '{"words":["a"]}');
 * assert.equal(await checkRunTokenizer(run, data, "evaluate"), '{"words":["a"]}'); // no saved tokenizer
 * await Deno.writeTextFile(`${run}/tokenizer.json`, '{"words":["b"]}');
 * await assert.rejects(checkRunTokenizer(run, data, "evaluate"), /Cannot evaluate .*differs from the run's tokenizer.json/);
 * ```
 */
export async function checkRunTokenizer(
  runDir: string,
  dataDir: string,
  action: "resume" | "evaluate",
): Promise<string> {
  const dataTokenizer = await Deno.readTextFile(`${dataDir}/tokenizer.json`);
  const runTokenizer = await Deno.readTextFile(`${runDir}/tokenizer.json`).catch(() => undefined);
  if (runTokenizer !== undefined && runTokenizer !== dataTokenizer) {
    throw new Error(
      `Cannot ${action} ${runDir}: ${dataDir}/tokenizer.json differs from the run's tokenizer.json ` +
        "(the data was rebuilt since training); train the run again",
    );
  }
  return dataTokenizer;
}

/**
 * The run's data: `config.dataDir` when this generator (`DATA_VERSION`) wrote
 * it from exactly this seed and data config, else built anew there.
 *
 * Source: nanoGPT `data/<dataset>/prepare.py` (prepare the files once, train from them); verl reads preprocessed Parquet.
 *
 * @param config The experiment config (`dataDir`, `seed`, `data`).
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
export async function ensureData(config: ExperimentConfig): Promise<LoadedData> {
  const manifestPath = `${config.dataDir}/manifest.json`;
  const wanted = JSON.stringify({ seed: config.seed, ...config.data });
  if (await exists(manifestPath)) {
    const m = JSON.parse(await Deno.readTextFile(manifestPath));
    if (m.version === DATA_VERSION && JSON.stringify(m.options) === wanted) return await loadData(config.dataDir);
  }
  await buildData(config.dataDir, config.seed, { ...config.data });
  return await loadData(config.dataDir);
}

class MetricsLog {
  rows: MetricsRow[] = [];
  constructor(readonly path: string) {}
  async load(keep: (row: MetricsRow) => boolean): Promise<void> {
    if (!(await exists(this.path))) return;
    const text = await Deno.readTextFile(this.path);
    this.rows = text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)).filter(keep);
    await this.flush();
  }
  async append(row: MetricsRow): Promise<void> {
    this.rows.push(row);
    await Deno.writeTextFile(this.path, JSON.stringify(row) + "\n", { append: true });
  }
  async flush(): Promise<void> {
    await Deno.writeTextFile(this.path, this.rows.map((r) => JSON.stringify(r) + "\n").join(""));
  }
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
 * @example
 * ```ts
 * import { runPipeline } from "./pipeline.ts";
 *
 * console.assert(typeof runPipeline === "function"); // see tests/pipeline/pipeline_test.ts for a full run
 * ```
 */
export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const { config, outDir, resume = false } = options;
  const progress = options.onProgress ?? (() => {});
  const stop = () => options.shouldStop?.() ?? false;
  const timings: Record<string, number> = {};
  const clock = () => performance.now() / 1000;
  await setBackend(config.backend);
  await Deno.mkdir(outDir, { recursive: true });
  if (!resume && (await exists(`${outDir}/metrics.jsonl`))) {
    for (const e of Deno.readDirSync(outDir)) await Deno.remove(`${outDir}/${e.name}`, { recursive: true });
  }
  await Deno.writeTextFile(`${outDir}/config.json`, JSON.stringify(config, null, 2));
  const log = new MetricsLog(`${outDir}/metrics.jsonl`);

  // data
  let t = clock();
  progress({ stage: "data", step: 0, total: 1, info: {} });
  const data = await ensureData(config);
  // the checkpoints' token ids belong to this tokenizer: it travels with the run (`deno task eval` checks it)
  const tokenizerText = resume
    ? await checkRunTokenizer(outDir, config.dataDir, "resume")
    : await Deno.readTextFile(`${config.dataDir}/tokenizer.json`);
  await Deno.writeTextFile(`${outDir}/tokenizer.json`, tokenizerText);
  timings.data = clock() - t;
  const modelConfig = modelPreset(config.model, data.tokenizer.size);
  const checkpointState = async (dir: string) =>
    (await exists(`${dir}/config.json`)) ? JSON.parse(await Deno.readTextFile(`${dir}/config.json`)).state : undefined;

  // which steps each stage had checkpointed (resume drops later metrics rows: they are recomputed)
  const sftState = resume ? await checkpointState(`${outDir}/sft`) : undefined;
  const rlStates = new Map<string, { step: number; done: boolean } | undefined>();
  for (const a of config.rl.algorithms) rlStates.set(a, resume ? await checkpointState(`${outDir}/${a}`) : undefined);
  await log.load((row) => {
    const stage = String(row.stage);
    if (stage === "pretrain") return sftState !== undefined; // pretraining precedes the first SFT checkpoint
    const done = stage === "sft" ? sftState?.step ?? 0 : rlStates.get(stage)?.step ?? 0;
    return Number(row.step) < done;
  });

  // SFT
  t = clock();
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
      sft = createModel(modelConfig, { seed: config.seed, name: "sft" });
      optimizer = createAdamW(trainableVariables(sft), { lr: config.sft.lr });
    }
    const { sequences: demos } = await teacherDemonstrations(data, sftDemoOptions(config, modelConfig.maxPositions));
    // induction sequences mixed into SFT keep the copying circuit the warm-up formed
    const mix = Math.round((config.sft.inductionMix ?? 0) * demos.length);
    const sequences = mix > 0
      ? [
        ...demos,
        ...inductionSequences(data.tokenizer, config.sft, { count: mix, seed: config.seed + 29 }),
      ]
      : demos;
    // induction warm-up: copying random word sequences forms the circuit that copies names
    const pretrainSteps = config.sft.pretrainSteps ?? 0;
    if (pretrainSteps > 0 && startStep === 0) {
      await trainSft({
        model: sft,
        optimizer,
        sequences: inductionSequences(data.tokenizer, config.sft, { count: 8192, seed: config.seed }),
        config: { ...config.sft, steps: pretrainSteps, batchSize: 32 },
        seed: config.seed + 17,
        padId: data.tokenizer.padId,
        onStep: async (r) => {
          await log.append({
            stage: "pretrain",
            step: r.step,
            "sft/loss": r.loss,
            "sft/lr": r.lr,
            "sft/tokens": r.tokens,
            "time/step": r.seconds,
          });
          progress({ stage: "pretrain", step: r.step + 1, total: pretrainSteps, info: { loss: r.loss } });
        },
      });
    }
    const every = Math.max(10, Math.ceil(config.sft.steps / 5));
    let step = startStep;
    while (step < config.sft.steps && !stop()) {
      const end = Math.min(config.sft.steps, step + every);
      await trainSft({
        model: sft,
        optimizer,
        sequences,
        config: config.sft,
        seed: config.seed,
        padId: data.tokenizer.padId,
        startStep: step,
        endStep: end,
        shouldStop: stop,
        onStep: async (r) => {
          step = r.step + 1;
          await log.append({
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
        state: { step, done: step >= config.sft.steps },
      });
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
    const reference = copyModel(sft, { name: "ref" });
    let policy: Model;
    let optimizer: AdamW;
    let critic: Model | undefined;
    let criticOptimizer: AdamW | undefined;
    let step = 0;
    const policyOpt = (m: Model) => createAdamW(trainableVariables(m), { lr: config.rl.lr, weightDecay: 0 });
    const criticOpt = (m: Model) => createAdamW(trainableVariables(m), { lr: config.rl.criticLr, weightDecay: 0 });
    if (state !== undefined) {
      const ck = await loadCheckpoint(dir, {
        expect: modelConfig,
        optimizers: algorithm === "ppo" ? { policy: policyOpt, critic: criticOpt } : { policy: policyOpt },
      });
      policy = ck.models.policy!;
      optimizer = ck.optimizers.policy!;
      critic = ck.models.critic;
      criticOptimizer = ck.optimizers.critic;
      step = state.step;
    } else {
      policy = copyModel(sft, { trainable: true, name: algorithm });
      optimizer = policyOpt(policy);
      if (algorithm === "ppo") {
        // critic: the SFT trunk with a fresh value head (MiniMind initialises the critic from the base weights)
        critic = createModel(modelConfig, { kind: "critic", seed: config.seed + 1, name: "critic" });
        for (const [name, v] of critic.weights) if (sft.weights.has(name)) v.assign(sft.weights.get(name)!);
        criticOptimizer = criticOpt(critic);
      }
    }
    const ctx = {
      algorithm,
      policy,
      optimizer,
      reference,
      critic,
      criticOptimizer,
      data,
      config: config.rl,
      // one seed for every algorithm: step s draws the same questions and sampling seeds for each, so MemPO and GRPO
      // start from identical rollouts and differ only by what they learn (the ablation of the memory advantage)
      seed: config.rl.seed ?? config.seed,
    };
    const save = () =>
      saveCheckpoint(dir, {
        models: critic ? { policy, critic } : { policy },
        optimizers: critic && criticOptimizer ? { policy: optimizer, critic: criticOptimizer } : { policy: optimizer },
        state: { step, done: step >= config.rl.steps },
      });
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
      await log.append({ stage: algorithm, step, ...row });
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

  // evaluation
  t = clock();
  const agents = runAgents(
    sft,
    new Map(config.rl.algorithms.map((a) => [a, trained.get(a)!])),
    data.tokenizer,
    config.sft.teacherMemory ?? "state",
  );
  const total = agents.length * data.test.size;
  let done = 0;
  const rows = await evaluateAgents(agents, data, config.eval, (r) => {
    done += 1;
    progress({
      stage: "eval",
      step: done,
      total,
      info: { agent: `${r.agent}/${r.contextPolicy}`, objectives: r.objectives, em: r.em },
    });
  });
  // where the agents go wrong: teacher-forced accuracy on the teacher's turns of every test set
  const diagnostic = await copyDiagnostics(agents, data, {
    questions: config.eval.questions,
    maxTurnTokens: config.eval.maxTurnTokens,
    seed: config.seed,
    memory: config.sft.teacherMemory ?? "state",
  });
  timings.eval = clock() - t;
  // how often GRPO would learn nothing at each test size, and the longest contexts each agent met
  t = clock();
  const sampled = agents.filter((a) => "model" in a && a.contextPolicy === "memory");
  let measured = 0;
  const groups = await equalRewardGroups(sampled, data, equalRewardOptions(config), (r) =>
    progress({
      stage: "groups",
      step: ++measured,
      total: sampled.length * data.test.size,
      info: { agent: r.agent, objectives: r.objectives, equal: r.equalShare },
    }));
  timings.groups = clock() - t;
  const demos = await teacherDemonstrations(data, sftDemoOptions(config, modelConfig.maxPositions));
  const contexts = longestContexts(rows, trainingContexts(demos.episodes, demos.policies, log.rows));
  await writeEvalFiles(outDir, rows, timings, diagnostic, unseenTestWords(data), log.rows, {
    equalRewardGroups: groups,
    longestContexts: contexts,
  });
  sft.dispose();
  for (const m of trained.values()) m.dispose();
  progress({ stage: "done", step: 1, total: 1, info: {} });
  return { completed: true, eval: rows, timings };
}

function unseenWordsMarkdown(unseen: ReadonlyMap<number, readonly string[]>): string {
  const sets = [...unseen].filter(([, words]) => words.length > 0);
  if (sets.length === 0) return "Every word of the test questions (entity names aside) appears in a training question.";
  return [
    "Words of the test questions that no training question contains (entity names aside): the policy has never",
    "seen these tokens in a question, a think or a memory (at most as random words in the induction warm-up), so",
    "what depends on them (the objective's marker in `<think>` and `<mem>`, and that it follows the one before) is",
    "out of reach at those counts. (`data.trainMarkers` numbers training questions from a random start so that",
    "every marker is seen; on the default preset that cost more than it gave: README, Measured.)",
    "",
    ...sets.map(([k, words]) => `- ${k} objectives: ${words.map((w) => `\`${w}\``).join(", ")}`),
  ].join("\n");
}

/**
 * Writes `eval.json`, `eval.md` and the run's figures ({@linkcode runFigures}: F1 and total
 * tokens vs objectives; the training reward, and reward / reference KL / policy loss, per step).
 *
 * Source: MemPO Figure 1 (performance and tokens vs number of objectives).
 *
 * @param outDir The run directory.
 * @param rows Evaluation rows.
 * @param timings Seconds per stage (reported in eval.md).
 * @param diagnostic Teacher-forced accuracies per test set and agent (reported in eval.md).
 * @param unseen Words of each test set's questions that no training question contains (reported in eval.md).
 * @param metrics The run's `metrics.jsonl` rows (the training figures; none without RL rows).
 * @param extra The share of equal-reward groups per agent and test set (`equalRewardGroups`) and the longest
 *   training and test contexts per agent (`longestContexts`), each a section of eval.md and a field of eval.json.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeEvalFiles } from "./pipeline.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await writeEvalFiles(dir, [], {}, undefined, new Map([[1, []], [6, ["q5", "q6"]]]), [], {
 *   longestContexts: [{ agent: "SFT", contextPolicy: "full", sftDemos: 700, test: { 6: 1200 } }],
 * });
 * const md = await Deno.readTextFile(`${dir}/eval.md`);
 * assert.match(md, /\n- 6 objectives: `q5`, `q6`\n/);
 * assert.match(md, /## Longest contexts[\s\S]*\| SFT \(full\) \| 700 \| – \| 1200 \* \|/);
 * const json = JSON.parse(await Deno.readTextFile(`${dir}/eval.json`));
 * assert.deepEqual(json.unseen, { 1: [], 6: ["q5", "q6"] });
 * assert.equal(json.longestContexts[0].sftDemos, 700);
 * ```
 */
export async function writeEvalFiles(
  outDir: string,
  rows: readonly EvalRow[],
  timings: Record<string, number>,
  diagnostic?: readonly CopyDiagnostic[],
  unseen?: ReadonlyMap<number, readonly string[]>,
  metrics: readonly MetricsRow[] = [],
  extra: { equalRewardGroups?: readonly EqualRewardGroupsRow[]; longestContexts?: readonly LongestContextRow[] } = {},
): Promise<void> {
  await Deno.writeTextFile(
    `${outDir}/eval.json`,
    JSON.stringify(
      { rows, timings, diagnostic, unseen: unseen && Object.fromEntries(unseen), ...extra },
      null,
      2,
    ),
  );
  const figures = runFigures(rows, metrics);
  for (const [name, figure] of Object.entries(figures)) await Deno.writeTextFile(`${outDir}/${name}`, figure.svg);
  const md = [
    "# Evaluation",
    "",
    "Greedy decoding. Cells: mean EM / mean F1 / mean total tokens per episode / mean peak context tokens.",
    "The teacher rows are the scripted teacher without drops: the ceiling, and the tokens a perfect policy",
    "spends under each context policy.",
    "",
    evalMarkdown(rows),
    "",
    "Format-valid rate per agent and test set:",
    "",
    ...rows.map((r) =>
      `- ${r.agent} (${r.contextPolicy}), ${r.objectives} objectives: ${(100 * r.formatValid).toFixed(0)}% valid, ${
        (100 * r.reward).toFixed(0)
      }% fully correct (${r.episodes} episodes)`
    ),
    "",
    "## Research check",
    "",
    "The MemPO paper's claims at 4 and more objectives, read off the table above (computed, not tuned):",
    "",
    researchCheckMarkdown(researchCheck(rows)),
    "",
    ...(unseen ? [unseenWordsMarkdown(unseen), ""] : []),
    ...(extra.longestContexts?.length ? [longestContextsMarkdown(extra.longestContexts), ""] : []),
    ...(extra.equalRewardGroups?.length ? [equalRewardGroupsMarkdown(extra.equalRewardGroups), ""] : []),
    ...(diagnostic ? [copyDiagnosticMarkdown(diagnostic), ""] : []),
    `Stage times (s): ${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}`,
    "",
    "![F1 vs objectives](eval_f1.svg) ![Tokens per episode vs objectives](eval_tokens.svg)",
    "",
    ...(figures["train_curves.svg"]
      ? [
        "## Training",
        "",
        "Per RL step and algorithm: the mean outcome reward of the step's episodes (alone in",
        "[train_reward.svg](train_reward.svg)), the reference KL and the policy loss (`metrics.jsonl`).",
        "",
        "![Reward, reference KL and policy loss per RL step](train_curves.svg)",
        "",
      ]
      : []),
  ].join("\n");
  await Deno.writeTextFile(`${outDir}/eval.md`, md);
}

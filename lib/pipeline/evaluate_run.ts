/**
 * The evaluation stage of a run, for `deno task train` (after RL) and
 * `deno task eval` (on a run's checkpoints) alike: the agents on every test
 * set, the decision entropy, the equal-reward groups, the longest contexts,
 * then `eval.json`, `eval.md` and the figures. (The teacher-forced probes of
 * where a policy goes wrong are a research instrument apart: `deno task
 * diagnose`.)
 *
 * @module
 */
import { type DataSplit, type LoadedData, splitTitle } from "../data/build.ts";
import { unseenTestWords } from "../data/coverage.ts";
import type { ContextPolicy } from "../env/context.ts";
import type { Model } from "../model/params.ts";
import { readCheckpointRecord } from "../model/checkpoint.ts";
import { type Algorithm, type ExperimentConfig, teacherMemory } from "../config/experiment.ts";
import { sftDemoOptions, teacherDemonstrations } from "../train/demos.ts";
import { type MetricsRow, rlStages } from "../train/metrics.ts";
import {
  AGENT_NAMES,
  episodeEndsMarkdown,
  evalMarkdown,
  type EvalRow,
  evaluateAgents,
  keptFactsMarkdown,
  runAgents,
} from "../eval/evaluate.ts";
import { type EvalWorkers, evalWorkersFor } from "../eval/eval_workers.ts";
import { researchCheck, researchCheckMarkdown } from "../eval/research_check.ts";
import { rlSignal, rlSignalMarkdown } from "../eval/rl_signal.ts";
import { tokenCost, tokenCostMarkdown } from "../eval/token_cost.ts";
import {
  equalRewardGroups,
  equalRewardGroupsMarkdown,
  type EqualRewardGroupsRow,
  equalRewardOptions,
} from "../eval/equal_reward_groups.ts";
import {
  demoContexts,
  type LongestContextRow,
  longestContexts,
  longestContextsMarkdown,
  trainingContexts,
} from "../eval/longest_contexts.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { decisionEntropyMarkdown, type DecisionEntropyRow, decisionEntropyRows } from "../eval/decision_entropy.ts";
import { DataError } from "../errors.ts";
import { faultPoint } from "../fault_point.ts";
import { runFigures } from "./run_figures.ts";
import { evalEpisodeLog } from "./run_episodes.ts";
import type { ProgressEvent } from "./_progress.ts";

/** The field of the SFT checkpoint's state that holds its demonstrations' longest contexts ({@linkcode demoContexts}). */
export const DEMO_CONTEXTS_STATE = "demoContexts";

/**
 * The SFT demonstrations' longest contexts of a run, as its SFT stage
 * recorded them in `sft/`'s checkpoint state (`demoContexts`); a run saved
 * before they were recorded (or without an SFT checkpoint) has them
 * recomputed from the same demonstrations, which are seeded.
 *
 * Source: this package (eval.md's longest contexts without re-running every SFT demonstration).
 *
 * @param runDir The run directory.
 * @param config The run's config.
 * @param data The run's data.
 * @param maxPositions The SFT model's positions (the demonstrations' context limit).
 * @returns The longest demonstration per context policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runDemoContexts } from "./evaluate_run.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { saveCheckpoint } from "../model/checkpoint.ts";
 * import { createModel } from "../model/params.ts";
 * import { modelPreset } from "../model/config.ts";
 *
 * const run = await Deno.makeTempDir();
 * const m = createModel(modelPreset("tiny", 8), { seed: 0 });
 * await saveCheckpoint(`${run}/sft`, { models: { policy: m }, state: { step: 1, done: true, demoContexts: { memory: 90, full: 400 } } });
 * assert.deepEqual(await runDemoContexts(run, resolveConfig("quick"), undefined as never, 512), { memory: 90, full: 400 });
 * m.dispose();
 * ```
 */
export async function runDemoContexts(
  runDir: string,
  config: ExperimentConfig,
  data: LoadedData,
  maxPositions: number,
): Promise<Partial<Record<ContextPolicy, number>>> {
  const recorded = (await readCheckpointRecord(`${runDir}/sft`))?.state[DEMO_CONTEXTS_STATE];
  if (recorded === undefined) {
    const demos = await teacherDemonstrations(data, sftDemoOptions(config, maxPositions));
    return demoContexts(demos.episodes, demos.policies);
  }
  const ok = typeof recorded === "object" && recorded !== null && !Array.isArray(recorded) &&
    Object.entries(recorded).every(([k, v]) =>
      (k === "memory" || k === "full") && Number.isInteger(v) && (v as number) >= 0
    );
  if (!ok) {
    throw new DataError(
      `Cannot evaluate ${runDir}: sft/config.json's state.${DEMO_CONTEXTS_STATE} must map memory and full to ` +
        `token counts, current value is ${JSON.stringify(recorded)}`,
    );
  }
  return recorded as Partial<Record<ContextPolicy, number>>;
}

/** Options of {@linkcode evaluateRun}. */
export interface EvaluateRunOptions {
  /** The run directory: its `sft/` state holds the demonstrations' contexts. */
  runDir: string;
  /** Where the evaluation files are written (another split's: `splitDir(RUN, split)`, `RUN/valid`). @default runDir */
  outDir?: string;
  /** The run's config (`eval`, `rl.algorithms`, the teacher's memory, the seeds). */
  config: ExperimentConfig;
  /** The run's data. */
  data: LoadedData;
  /** The SFT policy (the caller's: evaluateRun frees none of its models). */
  sft: Model;
  /** The RL policies, one per `config.rl.algorithms` (the caller's too). */
  trained: ReadonlyMap<Algorithm, Model>;
  /** The run's `metrics.jsonl` rows (the training figures, the RL rollouts' longest contexts). */
  metrics: readonly MetricsRow[];
  /** What is missing from `metrics` (a torn last line dropped: `tornLineNote`), said in eval.md and eval.json. */
  metricsNote?: string;
  /** Seconds of the stages before (eval.md reports them); the result adds `eval` and `groups`. @default {} */
  timings?: Readonly<Record<string, number>>;
  /** Progress: stage `eval` per evaluation row, `groups` per equal-reward row. */
  onProgress?: (e: ProgressEvent) => void;
}

/**
 * The evaluation stage: every agent of {@linkcode runAgents} on every test
 * set (`evaluateAgents`), the entropy at the memory decision of the
 * memory-context model agents (`decisionEntropyRows`), their equal-reward
 * groups (`equalRewardGroups`), the longest training and test contexts
 * (`longestContexts`, from the SFT checkpoint's recorded demonstrations and
 * the RL rows of `metrics`), then {@linkcode writeEvalFiles}. The models stay
 * the caller's (it frees them); the workers are closed whatever throws.
 *
 * ```text
 * agents → evaluateAgents → decisionEntropyRows  (timed: eval)
 *        → equalRewardGroups                     (timed: groups)
 *        → longestContexts → writeEvalFiles
 * ```
 *
 * Source: MemPO / MEM1 evaluation protocol (EM, F1, tokens and peak memory per objective count).
 *
 * @param options The run, its models (borrowed), metrics rows, earlier timings, progress.
 * @returns The evaluation rows and the timings (the given ones, then `eval` and `groups`).
 *
 * @example A run of a tiny untrained model: the files written
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { createModel } from "../model/params.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { evaluateRun } from "./evaluate_run.ts";
 *
 * const config = resolveConfig("quick", {
 *   rl: { algorithms: [] }, sft: { demos: 4 }, data: { testObjectives: [1] }, eval: { questions: 1, maxTurns: 2, maxTurnTokens: 16 },
 * });
 * const dataDir = await Deno.makeTempDir();
 * await buildData(dataDir, 0, { trainCount: 4, testCount: 1, testObjectives: [1], sizes: { distractors: 0 } });
 * const data = await loadData(dataDir);
 * const sft = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 0 });
 * const runDir = await Deno.makeTempDir();
 * const { rows, timings } = await evaluateRun({ runDir, config, data, sft, trained: new Map(), metrics: [], timings: { sft: 1 } });
 * assert.deepEqual(rows.map((r) => `${r.agent} ${r.contextPolicy}`), ["Teacher full", "Teacher memory", "SFT full", "SFT memory"]);
 * assert.deepEqual(Object.keys(timings), ["sft", "eval", "groups"]);
 * assert.match(await Deno.readTextFile(`${runDir}/eval.md`), /^# Evaluation\n/);
 * sft.dispose(); // the caller's
 * ```
 */
export async function evaluateRun(
  options: EvaluateRunOptions,
): Promise<{ rows: EvalRow[]; timings: Record<string, number> }> {
  const { runDir, config, data, sft, trained, metrics } = options;
  const progress = options.onProgress ?? (() => {});
  const clock = () => performance.now() / 1000;
  const timings: Record<string, number> = { ...options.timings };
  let workers: EvalWorkers | undefined;
  try {
    const missing = config.rl.algorithms.filter((a) => !trained.has(a));
    if (missing.length > 0) {
      throw new TypeError(`Cannot evaluate ${runDir}: no trained policy for ${missing.join(", ")} (rl.algorithms)`);
    }
    let t = clock();
    const memory = teacherMemory(config);
    const agents = runAgents(
      sft,
      new Map(config.rl.algorithms.map((a) => [a, trained.get(a)!])),
      data.tokenizer,
      memory,
    );
    const total = agents.length * data.test.size;
    let done = 0;
    const onRow = (r: EvalRow) => {
      done += 1;
      progress({
        stage: "eval",
        step: done,
        total,
        info: { agent: `${r.agent}/${r.contextPolicy}`, objectives: r.objectives, em: r.em },
      });
    };
    // the model agents' cells of the evaluation and the equal-reward groups on a worker per core (the same rows, bit for
    // bit, on wasm, for data loaded from a directory the workers can load: createEvalWorkers)
    workers = evalWorkersFor(data, [...new Set(agents.flatMap((a) => ("model" in a ? [a.model] : [])))]);
    // every episode of the evaluation, in episodes/eval.jsonl
    const onEpisodes = await evalEpisodeLog(options.outDir ?? runDir, data, config);
    const rows = workers !== undefined
      ? await workers.evaluate(agents, config.eval, onRow, undefined, onEpisodes)
      : await evaluateAgents(agents, data, config.eval, onRow, onEpisodes);
    // how undecided each policy is at the memory decision, along the cold-start teacher's episodes
    const entropy = await decisionEntropyRows(
      agents.flatMap((a) => ("model" in a && a.contextPolicy === "memory" ? [{ name: a.name, model: a.model }] : [])),
      data,
      {
        questions: config.eval.questions,
        maxTurnTokens: config.eval.maxTurnTokens,
        memory,
        dropProbability: config.sft.dropProbability,
        seed: config.seed,
      },
    );
    timings.eval = clock() - t;
    // how often GRPO would learn nothing at each test size, and the longest contexts each agent met
    t = clock();
    const sampled = agents.filter((a) => "model" in a && a.contextPolicy === "memory");
    let measured = 0;
    const onGroup = (r: EqualRewardGroupsRow) =>
      progress({
        stage: "groups",
        step: ++measured,
        total: sampled.length * data.test.size,
        info: { agent: r.agent, objectives: r.objectives, equal: r.equalShare },
      });
    const groups = workers !== undefined
      ? await workers.equalRewardGroups(sampled, equalRewardOptions(config), onGroup)
      : await equalRewardGroups(sampled, data, equalRewardOptions(config), onGroup);
    workers?.close();
    timings.groups = clock() - t;
    const demos = await runDemoContexts(runDir, config, data, sft.config.maxPositions);
    const contexts = longestContexts(rows, trainingContexts(demos, metrics));
    await writeEvalFiles(options.outDir ?? runDir, {
      rows,
      timings,
      decisionEntropy: entropy,
      unseen: unseenTestWords(data),
      metrics,
      ...(options.metricsNote === undefined ? {} : { metricsNote: options.metricsNote }),
      equalRewardGroups: groups,
      longestContexts: contexts,
      split: data.split,
    });
    return { rows, timings };
  } finally {
    workers?.close();
  }
}

function unseenWordsMarkdown(unseen: ReadonlyMap<number, readonly string[]>): string {
  const sets = [...unseen].filter(([, words]) => words.length > 0);
  if (sets.length === 0) return "Every word of the test questions (entity names aside) appears in a training question.";
  return [
    "Words of the test questions that no training question contains (entity names aside): the policy has never",
    "seen these tokens in a question (at most as random words in the induction warm-up), so what depends on them",
    "(`;` where every training question has one objective: where one objective ends and the next starts) is out of",
    "reach at those counts. (Questions numbered their objectives `q1 … ; q2 …` up to commit 3dbb285, and `q5`-`q8`",
    "were unseen at 6 and 8 objectives: docs/research/many_objectives.md, Wall 1.)",
    "",
    ...sets.map(([k, words]) => `- ${k} objectives: ${words.map((w) => `\`${w}\``).join(", ")}`),
  ].join("\n");
}

/** What {@linkcode writeEvalFiles} writes: each a section of eval.md and a field of eval.json. */
export interface EvalFiles {
  /** Evaluation rows. */
  rows: readonly EvalRow[];
  /** Seconds per stage (reported in eval.md). */
  timings: Readonly<Record<string, number>>;
  /** Entropy at the memory decision per model agent and test set (`decisionEntropyRows`); none without decoys. */
  decisionEntropy?: readonly DecisionEntropyRow[];
  /** Words of each test set's questions that no training question contains. */
  unseen?: ReadonlyMap<number, readonly string[]>;
  /** The run's `metrics.jsonl` rows (the training figures and the RL updates' signal, `rlSignal`; none without RL rows). @default [] */
  metrics?: readonly MetricsRow[];
  /** What is missing from `metrics` (a torn last line dropped): eval.md says it under the title, eval.json as `metricsNote`. */
  metricsNote?: string;
  /** The share of equal-reward groups per agent and test set (`equalRewardGroups`). */
  equalRewardGroups?: readonly EqualRewardGroupsRow[];
  /** The longest training and test contexts per agent (`longestContexts`). */
  longestContexts?: readonly LongestContextRow[];
  /** The sets evaluated (`LoadedData.split`): eval.json's `split` and eval.md's title name the validation sets. @default "test" */
  split?: DataSplit;
}

/**
 * Writes `eval.json`, `eval.md` and the run's figures ({@linkcode runFigures}: F1 and total
 * tokens vs objectives; the training reward, reward / reference KL / policy loss, and the
 * share of equal-reward groups / entropy, per step). From the RL rows of `metrics`, eval.json's
 * `rlSignal` and eval.md's "What the RL updates had to work with" (`rlSignal`, by quarter); from
 * rows that record each question's turns, `tokenCost` and "What the tokens pay for". A
 * `metricsNote` (rows missing from `metrics`) heads eval.md and is kept in eval.json.
 *
 * Source: MemPO Figure 1 (performance and tokens vs number of objectives).
 *
 * @param outDir The run directory.
 * @param files The rows, timings and the optional sections ({@linkcode EvalFiles}).
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeEvalFiles } from "./evaluate_run.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await writeEvalFiles(dir, {
 *   rows: [],
 *   timings: {},
 *   unseen: new Map([[1, []], [6, ["q5", "q6"]]]),
 *   longestContexts: [{ agent: "SFT", contextPolicy: "full", sftDemos: 700, test: { 6: 1200 } }],
 *   metricsNote: "metrics.jsonl line 9 was cut short",
 * });
 * const md = await Deno.readTextFile(`${dir}/eval.md`);
 * assert.match(md, /\n- 6 objectives: `q5`, `q6`\n/);
 * assert.match(md, /^# Evaluation\n\n> metrics\.jsonl line 9 was cut short\.\n/);
 * assert.match(md, /## Longest contexts[\s\S]*\| SFT \(full\) \| 700 \| – \| 1200 \* \|/);
 * const json = JSON.parse(await Deno.readTextFile(`${dir}/eval.json`));
 * assert.deepEqual(json.unseen, { 1: [], 6: ["q5", "q6"] });
 * assert.equal(json.longestContexts[0].sftDemos, 700);
 * assert.equal(json.metricsNote, "metrics.jsonl line 9 was cut short");
 * ```
 */
export async function writeEvalFiles(outDir: string, files: EvalFiles): Promise<void> {
  const {
    rows,
    timings,
    decisionEntropy,
    unseen,
    metrics = [],
    metricsNote,
    equalRewardGroups,
    longestContexts,
    split,
  } = files;
  const named = split !== undefined && split !== "test" ? { split } : {};
  const titled = splitTitle(split ?? "test");
  const signal = rlSignal(metrics, rlStages(metrics));
  const cost = tokenCost(rows);
  await writeFileAtomic(
    `${outDir}/eval.json`,
    JSON.stringify(
      {
        ...named,
        ...(metricsNote === undefined ? {} : { metricsNote }),
        rows,
        timings,
        ...(decisionEntropy?.length ? { decisionEntropy } : {}),
        unseen: unseen && Object.fromEntries(unseen),
        equalRewardGroups,
        longestContexts,
        ...(cost.length > 0 ? { tokenCost: cost } : {}),
        ...(signal.length > 0 ? { rlSignal: signal } : {}),
      },
      null,
      2,
    ),
  );
  faultPoint("eval-files");
  const figures = runFigures(rows, metrics);
  for (const [name, figure] of Object.entries(figures)) await writeFileAtomic(`${outDir}/${name}`, figure.svg);
  const md = [
    titled ? `# Evaluation on ${titled.title}` : "# Evaluation",
    "",
    ...(titled ? [titled.note, ""] : []),
    ...(metricsNote === undefined ? [] : [`> ${metricsNote}.`, ""]),
    "Greedy decoding. Cells: mean EM / mean F1 / mean total tokens per episode / mean peak context tokens.",
    "The teacher rows are the scripted teacher without drops: the ceiling, and the tokens a perfect policy",
    "spends under each context policy.",
    "",
    evalMarkdown(rows),
    "",
    episodeEndsMarkdown(rows),
    "",
    "## Research check",
    "",
    "The MemPO paper's claims in this miniature, read off the table above (computed, not tuned; the claims that " +
    "need several RL seeds are decided by `deno task compare`, which writes compare.md):",
    "",
    researchCheckMarkdown(researchCheck(rows)),
    "",
    ...(rows.some((r) => r.kept) ? [keptFactsMarkdown(rows), ""] : []),
    ...(decisionEntropy?.length ? [decisionEntropyMarkdown(decisionEntropy), ""] : []),
    ...(unseen ? [unseenWordsMarkdown(unseen), ""] : []),
    ...(longestContexts?.length ? [longestContextsMarkdown(longestContexts), ""] : []),
    ...(cost.length > 0 ? [tokenCostMarkdown(cost), ""] : []),
    ...(equalRewardGroups?.length ? [equalRewardGroupsMarkdown(equalRewardGroups), ""] : []),
    ...(signal.length > 0 ? [rlSignalMarkdown(signal, AGENT_NAMES), ""] : []),
    `Stage times (s): ${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}`,
    "",
    "![F1 vs objectives](eval_f1.svg) ![Tokens per episode vs objectives](eval_tokens.svg)",
    "",
    ...(figures["train_curves.svg"]
      ? [
        "## Training",
        "",
        "Per RL step and algorithm: the mean outcome reward of the step's episodes (alone in",
        "[train_reward.svg](train_reward.svg)), the reference KL and the policy loss (`metrics.jsonl`); below it, where",
        "logged, the share of groups with equal rewards and the entropy of the sampled tokens.",
        "",
        "![Reward, reference KL and policy loss per RL step](train_curves.svg)",
        "",
        ...(figures["train_signal.svg"]
          ? [
            "![Groups with equal rewards and entropy of the sampled tokens per RL step](train_signal.svg)",
            "",
          ]
          : []),
      ]
      : []),
  ].join("\n");
  await writeFileAtomic(`${outDir}/eval.md`, md);
}

/**
 * How often GRPO would learn nothing at each test size: the share of groups
 * of G sampled rollouts whose outcome rewards are all equal, measured per
 * agent and test set (the RL steps log the same share on training questions,
 * `grpo/frac_zero_std`).
 *
 * @module
 */
import type { LoadedData } from "../data/build.ts";
import { hashSeed } from "../random.ts";
import { runEpisodes } from "../env/rollout.ts";
import { tasksFromRecords } from "../train/demos.ts";
import { equalGroupShare, groupShare } from "../train/metrics.ts";
import { agentObjectivesTable, agentPolicy, type AgentSpec, testSizes } from "./evaluate.ts";
import type { ExperimentConfig } from "../config/experiment.ts";

/** Questions per test set that {@linkcode equalRewardGroups} samples by default (G rollouts each). */
export const EQUAL_REWARD_QUESTIONS = 8;

/** Options of {@linkcode equalRewardGroups}. */
export interface EqualRewardGroupsOptions {
  /** The first N questions of each test set. @default EQUAL_REWARD_QUESTIONS (8) */
  questions?: number;
  /** G, rollouts per question (the run's `rl.groupSize`). */
  groupSize: number;
  /** Sampling temperature (the run's `rl.temperature`). @default 1 */
  temperature?: number;
  /** Turn limit (the evaluation's: long questions need more turns than RL's limit). */
  maxTurns: number;
  /** Tokens per turn. */
  maxTurnTokens: number;
  /** Seed of the sampling (each test set gets its own stream). @default 0 */
  seed?: number;
}

/** One agent on one test set. */
export interface EqualRewardGroupsRow {
  /** Agent name. */
  agent: string;
  /** Its context policy. */
  contextPolicy: AgentSpec["contextPolicy"];
  /** Objectives per question of the test set. */
  objectives: number;
  /** Groups (questions) sampled. */
  groups: number;
  /** G, rollouts per group. */
  groupSize: number;
  /** Share of groups whose rewards are all equal (GRPO's advantage is 0 on each). */
  equalShare: number;
  /** Share of groups with every rollout wrong (reward 0). */
  allWrongShare: number;
  /** Share of groups with every rollout right (reward 1). */
  allRightShare: number;
  /** Mean outcome reward of the rollouts. */
  rewardMean: number;
}

/**
 * For each agent and test set: G sampled rollouts on each of the first N
 * questions, and the share of these groups whose outcome rewards are all
 * equal (as in an RL step, where GRPO gives such a group zero advantage), the
 * all-wrong and all-right shares, and the mean reward.
 *
 * ```text
 * for each agent, test set k:  tasks = first N questions × G (group = question)
 *   rollouts at temperature τ → rewards;  equalShare = equalGroupShare(rewards, groups)
 * ```
 *
 * Source: DAPO (arXiv:2503.14476) §3.2 (groups of all-equal rewards give no gradient); MemPO's
 * motivation (the outcome reward rarely separates long-horizon rollouts).
 *
 * @param agents The agents (model agents sample at `temperature`; a scripted policy runs as it is).
 * @param data Loaded data (test sets).
 * @param options N, G, temperature, turn limits, seed.
 * @param onRow Called after each row.
 * @returns One row per agent and test set.
 *
 * @example A scripted policy that is always right: every group is all-right, so all are equal
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { equalRewardGroups } from "./equal_reward_groups.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 2, testObjectives: [2] });
 * const data = await loadData(dir);
 * const policy = createTeacher(data.tokenizer, { dropProbability: 0 });
 * const [row] = await equalRewardGroups([{ name: "Teacher", policy, maxPositions: 512, contextPolicy: "memory" }], data, {
 *   questions: 2, groupSize: 3, maxTurns: 20, maxTurnTokens: 96,
 * });
 * assert.deepEqual([row!.groups, row!.equalShare, row!.allRightShare, row!.rewardMean], [2, 1, 1, 1]);
 * ```
 */
export async function equalRewardGroups(
  agents: readonly AgentSpec[],
  data: LoadedData,
  options: EqualRewardGroupsOptions,
  onRow?: (row: EqualRewardGroupsRow) => void | Promise<void>,
): Promise<EqualRewardGroupsRow[]> {
  checkOptions(options);
  const rows: EqualRewardGroupsRow[] = [];
  for (const agent of agents) {
    for (const objectives of testSizes(data)) {
      const row = await equalRewardCell(agent, data, objectives, options);
      rows.push(row);
      await onRow?.(row);
    }
  }
  return rows;
}

function checkOptions(options: EqualRewardGroupsOptions): void {
  const { questions = EQUAL_REWARD_QUESTIONS, groupSize } = options;
  for (const [k, v] of Object.entries({ questions, groupSize })) {
    if (!Number.isInteger(v) || v < 1) {
      throw new RangeError(`Cannot measure equalRewardGroups: ${k} must be an integer ≥ 1, current value is ${v}`);
    }
  }
}

/**
 * One cell of {@linkcode equalRewardGroups}: the agent's G rollouts of each
 * of the first questions of the test set of `objectives` objectives, sampled
 * with the test set's own seed stream. A cell depends on nothing but its
 * arguments, so cells may run in any order or process (`evaluateOnWorkers`).
 *
 * Source: this package ({@linkcode equalRewardGroups}' cell).
 *
 * @param agent The agent.
 * @param data Loaded data (test sets).
 * @param objectives The test set's objective count.
 * @param options Questions, G, temperature, turn limits, seed.
 * @returns The row.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { equalRewardCell, equalRewardGroups } from "./equal_reward_groups.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 2, testObjectives: [1, 2] });
 * const data = await loadData(dir);
 * const agent = { name: "Teacher", policy: createTeacher(data.tokenizer, { dropProbability: 0 }), maxPositions: 1024, contextPolicy: "memory" as const };
 * const options = { questions: 2, groupSize: 2, maxTurns: 20, maxTurnTokens: 96 };
 * const row = await equalRewardCell(agent, data, 1, options);
 * assert.deepEqual([row.groups, row.equalShare, row.allRightShare], [2, 1, 1]);
 * assert.deepEqual(row, (await equalRewardGroups([agent], data, options))[0]);
 * ```
 */
export async function equalRewardCell(
  agent: AgentSpec,
  data: LoadedData,
  objectives: number,
  options: EqualRewardGroupsOptions,
): Promise<EqualRewardGroupsRow> {
  const { questions = EQUAL_REWARD_QUESTIONS, groupSize, temperature = 1, maxTurns, maxTurnTokens, seed = 0 } = options;
  checkOptions(options);
  const records = data.test.get(objectives);
  if (records === undefined) {
    throw new RangeError(`Cannot measure equalRewardGroups: no test set of ${objectives} objectives`);
  }
  const { policy, maxPositions } = agentPolicy(agent, data.tokenizer.padId, temperature);
  const tasks = tasksFromRecords(records.slice(0, questions)).flatMap((t) => new Array(groupSize).fill(t));
  const eps = await runEpisodes(policy, tasks, data, {
    contextPolicy: agent.contextPolicy,
    maxTurns,
    maxTurnTokens,
    maxPositions,
    seed: hashSeed(seed, 0x9e0, objectives),
  });
  const rewards = eps.map((e) => e.reward);
  const groups = eps.map((e) => e.task.groupId);
  const equal = equalGroupShare(rewards, groups);
  return {
    agent: agent.name,
    contextPolicy: agent.contextPolicy,
    objectives,
    groups: equal.groups,
    groupSize,
    equalShare: equal.share,
    allWrongShare: groupShare(rewards, groups, (rs) => rs.every((r) => r === 0)).share,
    allRightShare: groupShare(rewards, groups, (rs) => rs.every((r) => r === 1)).share,
    rewardMean: rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length),
  };
}

/**
 * The options of a run's measurement: G and the temperature of its RL, the
 * turn limits of its evaluation, and the first {@linkcode EQUAL_REWARD_QUESTIONS}
 * (8) questions of each test set (fewer when `eval.questions` is smaller).
 *
 * Source: this package (issue 19: the share of GRPO groups with equal rewards per test size).
 *
 * @param config The experiment config.
 * @returns The options of {@linkcode equalRewardGroups}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { equalRewardOptions } from "./equal_reward_groups.ts";
 *
 * assert.deepEqual(equalRewardOptions(resolveConfig("quick")), { questions: 4, groupSize: 4, temperature: 1, maxTurns: 12, maxTurnTokens: 64, seed: 0 });
 * ```
 */
export function equalRewardOptions(config: ExperimentConfig): EqualRewardGroupsOptions {
  return {
    questions: Math.min(EQUAL_REWARD_QUESTIONS, config.eval.questions),
    groupSize: config.rl.groupSize,
    temperature: config.rl.temperature,
    maxTurns: config.eval.maxTurns,
    maxTurnTokens: config.eval.maxTurnTokens,
    seed: config.seed,
  };
}

/**
 * eval.md's section on {@linkcode equalRewardGroups}: what was sampled, then
 * a table with rows = agents, columns = objective counts, each cell
 * `equal % (all wrong %) / mean reward`.
 *
 * Source: this package (eval.md's GRPO-signal table).
 *
 * @param rows The rows.
 * @returns Markdown text (empty when there are no rows).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { equalRewardGroupsMarkdown } from "./equal_reward_groups.ts";
 *
 * const md = equalRewardGroupsMarkdown([{ agent: "SFT", contextPolicy: "memory", objectives: 4, groups: 8, groupSize: 4, equalShare: 0.75, allWrongShare: 0.625, allRightShare: 0.125, rewardMean: 0.19 }]);
 * assert.match(md, /^## Groups with equal rewards\n\nG = 4 rollouts .* first 8 questions/);
 * assert.match(md, /\| SFT \(memory\) \| 75 % \(63 % all wrong\) \/ 0.19 \|/);
 * ```
 */
export function equalRewardGroupsMarkdown(rows: readonly EqualRewardGroupsRow[]): string {
  if (rows.length === 0) return "";
  const pct = (x: number) => `${Math.round(100 * x)} %`;
  return [
    "## Groups with equal rewards",
    "",
    `G = ${rows[0]!.groupSize} rollouts (at the RL temperature) on each of the first ${
      rows[0]!.groups
    } questions of every`,
    "test set: the share of groups whose outcome rewards are all equal, where GRPO's advantage is 0 (in brackets the",
    "share where every rollout is wrong), and the mean reward. The RL steps log the same share on their training",
    "questions (`grpo/frac_zero_std`, per objective count `grpo/frac_zero_std_k{k}`).",
    "",
    agentObjectivesTable(
      rows,
      (k) => `${k} obj`,
      (r) => `${pct(r.equalShare)} (${pct(r.allWrongShare)} all wrong) / ${r.rewardMean.toFixed(2)}`,
    ),
  ].join("\n");
}

/**
 * The episode logs of a run, as the pipeline writes them: the RL steps'
 * episodes with each token's advantage and MemPO's memory credit
 * (`episodes/<algorithm>.jsonl`), every evaluation episode
 * (`episodes/eval.jsonl`), each with where it first left the scripted
 * teacher's path. The logs only observe: the metrics and the evaluation are
 * the same to the bit with or without them.
 *
 * @module
 */
import type { LoadedData } from "../data/build.ts";
import { type Algorithm, type ExperimentConfig, teacherMemory } from "../config/experiment.ts";
import type { AgentPolicy, EpisodeTask } from "../env/rollout.ts";
import { createTeacher } from "../env/teacher.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import type { RlStepEpisodes } from "../train/rl_trainer.ts";
import { tasksFromRecords } from "../train/demos.ts";
import { AGENT_NAMES, type OnEvalEpisodes } from "../eval/evaluate.ts";
import { type EpisodeRecord, episodeRecord } from "../episodes/episode_record.ts";
import { appendEpisodes, episodeLogPath, keepEpisodes } from "../episodes/episode_log.ts";
import { teacherLeave } from "../episodes/teacher_leave.ts";

/** The scripted teacher without drops in the run's memory format: the path {@linkcode teacherLeave} measures against. */
function pathTeacher(tokenizer: Tokenizer, config: ExperimentConfig): AgentPolicy {
  return createTeacher(tokenizer, { dropProbability: 0, memory: teacherMemory(config) });
}

// a record with where its episode left the teacher's path (none when the teacher cannot write the task)
async function withLeave(
  record: EpisodeRecord,
  task: EpisodeTask | undefined,
  teacher: AgentPolicy,
  tokenizer: Tokenizer,
): Promise<EpisodeRecord> {
  if (task === undefined) return record;
  const leave = await teacherLeave(teacher, tokenizer, task, record.turns.map((t) => t.tokens));
  return leave === undefined ? record : { ...record, leave };
}

/**
 * The RL stage's episode log: a function for `RlStepContext.onEpisodes` that
 * appends the step's first `keep` episodes (whole groups first: the batch is
 * ordered group by group), each token with its advantage in the update (the
 * sequence's `extras.advantages` on the sampled positions), A^T, and MemPO's
 * A^M, R^M, P_mem and P_full per turn.
 *
 * Source: this package (`deno task view`'s episode browser).
 *
 * @param runDir The run directory.
 * @param algorithm The RL algorithm.
 * @param data The run's data (its tokenizer).
 * @param config The run's config (the teacher's memory format).
 * @param keep Episodes kept of each step (`deno task train --rl-episodes`). @default all
 * @returns The `onEpisodes` hook.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { runEpisodes } from "../env/rollout.ts";
 * import { tasksFromRecords } from "../train/demos.ts";
 * import { readEpisodeLog } from "../episodes/episode_log.ts";
 * import { rlEpisodeLog } from "./run_episodes.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 1, testObjectives: [1] });
 * const data = await loadData(dir);
 * const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
 * const episodes = await runEpisodes(teacher, tasksFromRecords(data.train), data, { contextPolicy: "memory" });
 * const sequences = episodes.flatMap((e, i) => e.turns.map((t, k) => ({ episode: i, turn: k, tokens: [...t.context, ...t.sampled], lossMask: [], extras: { advantages: [...t.context.map(() => 0), ...t.sampled.map(() => 0.5)] } })));
 * await rlEpisodeLog(dir, "grpo", data, resolveConfig("quick"), 1)({ step: 3, episodes, sequences, outcome: [0.5, -0.5] });
 * const [r, ...rest] = (await readEpisodeLog(`${dir}/episodes/grpo.jsonl`)).records;
 * assert.deepEqual([r!.stage, r!.step, r!.agent, r!.outcomeAdvantage, rest.length], ["grpo", 3, "GRPO", 0.5, 0]);
 * assert.ok(r!.turns.every((t) => t.advantages!.every((a) => a === 0.5)));
 * assert.equal(r!.leave, null); // the teacher's own episode never leaves its path
 * ```
 */
export function rlEpisodeLog(
  runDir: string,
  algorithm: Algorithm,
  data: LoadedData,
  config: ExperimentConfig,
  keep?: number,
): (s: RlStepEpisodes) => Promise<void> {
  const path = episodeLogPath(runDir, algorithm);
  const teacher = pathTeacher(data.tokenizer, config);
  return async ({ step, episodes, sequences, outcome, memory }) => {
    const kept = episodes.slice(0, keep ?? episodes.length);
    if (kept.length === 0) return;
    const advantages = kept.map((e) => e.turns.map((): number[] | undefined => undefined));
    for (const s of sequences) {
      const row = advantages[s.episode];
      if (row === undefined) continue;
      const sampled = kept[s.episode]!.turns[s.turn]!.sampled.length;
      row[s.turn] = s.extras.advantages!.slice(s.tokens.length - sampled);
    }
    const records = await Promise.all(kept.map((e, i) =>
      withLeave(
        episodeRecord(e, data.tokenizer, {
          stage: algorithm,
          step,
          index: i,
          agent: AGENT_NAMES[algorithm],
          contextPolicy: "memory",
        }, {
          ...(outcome ? { outcomeAdvantage: outcome[i]! } : {}),
          advantages: advantages[i]!,
          ...(memory
            ? {
              memAdvantage: memory.advantages[i]!,
              memReward: memory.rewards[i]!,
              pMem: memory.pMem[i]!,
              pFull: memory.pFull[i]!,
            }
            : {}),
        }),
        e.task,
        teacher,
        data.tokenizer,
      )
    ));
    await appendEpisodes(path, records);
  };
}

/**
 * The evaluation's episode log: removes an earlier evaluation's
 * (`episodes/eval.jsonl` under `outDir`) and returns the `onEpisodes` hook of
 * `evaluateAgents` / `EvalWorkers.evaluate` that appends each cell's records,
 * each with where it left the teacher's path on its test question.
 *
 * Source: this package (`deno task view`'s episode browser).
 *
 * @param outDir Where the evaluation writes (`runDir`, or `RUN/valid`).
 * @param data The data evaluated (its test sets: the tasks of the records).
 * @param config The run's config (the teacher's memory format).
 * @returns The hook.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { evaluateAgents } from "../eval/evaluate.ts";
 * import { readEpisodeLog } from "../episodes/episode_log.ts";
 * import { evalEpisodeLog } from "./run_episodes.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 2, testObjectives: [1, 2] });
 * const data = await loadData(dir);
 * const policy = createTeacher(data.tokenizer, { dropProbability: 0 });
 * const config = resolveConfig("quick");
 * const onEpisodes = await evalEpisodeLog(dir, data, config);
 * await evaluateAgents([{ name: "Teacher", policy, maxPositions: 1024, contextPolicy: "memory" }], data, { questions: 2, maxTurns: 20, maxTurnTokens: 96 }, undefined, onEpisodes);
 * const { records } = await readEpisodeLog(`${dir}/episodes/eval.jsonl`);
 * assert.deepEqual(records.map((r) => [r.objectives, r.index, r.reward, r.leave]), [[1, 0, 1, null], [1, 1, 1, null], [2, 0, 1, null], [2, 1, 1, null]]);
 * await evalEpisodeLog(dir, data, config); // a new evaluation starts a new log
 * assert.equal((await readEpisodeLog(`${dir}/episodes/eval.jsonl`)).records.length, 0);
 * ```
 */
export async function evalEpisodeLog(
  outDir: string,
  data: LoadedData,
  config: ExperimentConfig,
): Promise<OnEvalEpisodes> {
  const path = episodeLogPath(outDir, "eval");
  await keepEpisodes(path, () => false);
  const teacher = pathTeacher(data.tokenizer, config);
  const taskOf = (r: EpisodeRecord) => {
    const q = data.test.get(r.objectives)?.[r.index];
    return q?.question === r.question ? tasksFromRecords([q])[0] : undefined;
  };
  return async (records) => {
    await appendEpisodes(
      path,
      await Promise.all(records.map((r) => withLeave(r, taskOf(r), teacher, data.tokenizer))),
    );
  };
}

/**
 * On a resume: each RL stage's episode log keeps the steps its checkpoint
 * covers (the later ones are sampled again) and loses a torn last line.
 *
 * Source: the resume of `metrics.jsonl` (`keepEpisodes`).
 *
 * @param runDir The run directory.
 * @param algorithms The run's RL algorithms.
 * @param covered Steps the stage's checkpoint covers (0: none).
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { appendEpisodes, readEpisodeLog } from "../episodes/episode_log.ts";
 * import { keepCoveredEpisodes } from "./run_episodes.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await appendEpisodes(`${dir}/episodes/mempo.jsonl`, [0, 1, 2, 3].map((step) => ({ v: 1, stage: "mempo", step, turns: [] }) as never));
 * await keepCoveredEpisodes(dir, ["mempo", "grpo"], (a) => (a === "mempo" ? 2 : 0));
 * assert.deepEqual((await readEpisodeLog(`${dir}/episodes/mempo.jsonl`)).records.map((r) => r.step), [0, 1]);
 * ```
 */
export async function keepCoveredEpisodes(
  runDir: string,
  algorithms: readonly Algorithm[],
  covered: (algorithm: Algorithm) => number,
): Promise<void> {
  for (const a of algorithms) {
    await keepEpisodes(episodeLogPath(runDir, a), (r) => (r.step ?? Infinity) < covered(a));
  }
}

/**
 * SFT data: the scripted teacher's episodes as training sequences (each
 * turn's context, then its tokens, loss on the tokens only), the contexts RL
 * later trains on; turns that extend one another share one sequence.
 *
 * @module
 */
import type { LoadedData } from "../data/build.ts";
import type { QaRecord } from "../data/dataset.ts";
import { type ContextPolicy } from "../env/context.ts";
import { carriedObjectives, createTeacher, type MemoryFormat } from "../env/teacher.ts";
import { objectivePool, type SubQuestion } from "../env/questions.ts";
import { type Episode, type EpisodeTask, runEpisodes } from "../env/rollout.ts";
import type { LmSequence } from "./collate.ts";
import { DEFAULT_JOIN_MAX, type ExperimentConfig, sftSeed, teacherMemory } from "../config/experiment.ts";

/**
 * Tasks for the agent loop from dataset records.
 *
 * Source: verl `RLHFDataset` → agent loop inputs.
 *
 * @param records QA records.
 * @param groupOffset Added to the record index to form group ids.
 * @returns Episode tasks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tasksFromRecords } from "./demos.ts";
 *
 * assert.deepEqual(tasksFromRecords([{ prompt: [], question: "q", targets: [["a"]] }]), [{ question: "q", targets: [["a"]], groupId: 0 }]);
 * ```
 */
export function tasksFromRecords(records: readonly QaRecord[], groupOffset = 0): EpisodeTask[] {
  return records.map((r, i) => ({
    question: r.question,
    targets: r.targets,
    groupId: groupOffset + i,
    ...(r.subQuestions ? { subQuestions: r.subQuestions } : {}),
  }));
}

/**
 * Training sequences of episodes: each turn's `context + sampled`, loss mask
 * 0 on the context (prompt, forced prefix, history, tool output), 1 on the
 * sampled tokens. A turn whose context extends the previous sequence (every
 * turn of a full-history episode; the second turn of a memory episode) is
 * appended to it instead of repeating the prefix:
 *
 * ```text
 * per turn:  [c₁ a₁] [c₁ a₁ t₁ a₂] [c₁ a₁ t₁ a₂ t₂ a₃]     Σ tokens O(T²)
 * packed:    [c₁ a₁ t₁ a₂ t₂ a₃]   (loss on a₁ a₂ a₃)      Σ tokens O(T)
 * ```
 *
 * Both give every sampled token the same logits (a causal model sees the same
 * prefix at the same positions), so the loss terms are the same; packing only
 * removes repeated work (standard multi-turn SFT).
 *
 * Source: MiniMind agent SFT (loss on assistant tokens only); MemPO trains per-turn sequences.
 *
 * @param episodes Finished episodes.
 * @returns One sequence per maximal run of turns whose contexts extend each other.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { turnSequences } from "./demos.ts";
 *
 * const ep = { turns: [{ context: [1, 2], sampled: [3, 4] }, { context: [1, 2, 3, 4, 5], sampled: [6] }, { context: [1, 7], sampled: [8] }] } as never;
 * assert.deepEqual(turnSequences([ep]), [
 *   { tokens: [1, 2, 3, 4, 5, 6], lossMask: [0, 0, 1, 1, 0, 1] },
 *   { tokens: [1, 7, 8], lossMask: [0, 0, 1] },
 * ]);
 * ```
 */
export function turnSequences(episodes: readonly Episode[]): LmSequence[] {
  const out: LmSequence[] = [];
  for (const e of episodes) {
    let current: { tokens: number[]; lossMask: number[] } | undefined;
    for (const t of e.turns) {
      if (t.sampled.length === 0) continue;
      if (current && extends_(t.context, current.tokens)) {
        const gap = t.context.slice(current.tokens.length); // the tool output and the next forced prefix
        current.lossMask.push(...gap.map(() => 0), ...t.sampled.map(() => 1));
        current.tokens.push(...gap, ...t.sampled);
      } else {
        current = {
          tokens: [...t.context, ...t.sampled],
          lossMask: [...t.context.map(() => 0), ...t.sampled.map(() => 1)],
        };
        out.push(current);
      }
    }
  }
  return out;
}

/** Whether `tokens` starts with `prefix`. */
function extends_(tokens: readonly number[], prefix: readonly number[]): boolean {
  return tokens.length >= prefix.length && prefix.every((id, i) => tokens[i] === id);
}

/** Every name a task's objectives hold (subjects, entities, answers): what other objectives added to it must avoid. */
function taskNames(task: EpisodeTask): Set<string> {
  return new Set((task.subQuestions ?? []).flatMap((q) => [q.subject, ...q.hops.flatMap((h) => [h.entity, h.answer])]));
}

/**
 * A task joined with objectives of other questions (`sft.joinShare`): the
 * extra objectives first, then the task's own, as one task of them all (its
 * question their texts joined by `;`, its targets their answers). With
 * `data.questionOnce` only the first turn's context holds that question,
 * and the pipeline learns a joined episode from its second turn on, so the
 * policy meets memories of more objectives than its training questions ask
 * without ever reading a question of that many.
 *
 * Source: this package (MEM1's state extended past the training questions' length).
 *
 * @param task The task.
 * @param extra The objectives joined before its own ({@linkcode carriedObjectives}: no name shared).
 * @returns The joined task (the task itself when nothing is joined).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { joinTask } from "./demos.ts";
 *
 * const one = (subject: string, answer: string) => ({ text: `${subject} was born in which city ?`, subject, answer, hops: [{ entity: subject, relation: "born" as const, answer }] });
 * const task = { question: "vunom was born in which city ?", targets: [["tesla"]], groupId: 3, subQuestions: [one("vunom", "tesla")] };
 * const joined = joinTask(task, [one("zorbex", "kalmar")]);
 * assert.equal(joined.question, "zorbex was born in which city ? ; vunom was born in which city ?");
 * assert.deepEqual([joined.targets, joined.groupId, joined.subQuestions!.map((q) => q.subject)], [[["kalmar"], ["tesla"]], 3, ["zorbex", "vunom"]]);
 * assert.equal(joinTask(task, []), task);
 * ```
 */
export function joinTask(task: EpisodeTask, extra: readonly SubQuestion[]): EpisodeTask {
  if (extra.length === 0) return task;
  const subQuestions = [...extra, ...(task.subQuestions ?? [])];
  return {
    ...task,
    question: subQuestions.map((q) => q.text).join(" ; "),
    targets: subQuestions.map((q) => [q.answer]),
    subQuestions,
  };
}

/**
 * A task joined, with probability `share`, with 1 … `max` objectives drawn
 * from `pool` that share no name with it or each other
 * ({@linkcode carriedObjectives}, seeded by the question and `seed`; then
 * {@linkcode joinTask}): the joined tasks of SFT (`sft.joinShare`) and RL
 * (`rl.joinShare`).
 *
 * Source: this package (MEM1's state extended past the training questions' length).
 *
 * @param task The task.
 * @param pool Objectives to join (its world's training objectives).
 * @param join Share of tasks joined and most objectives joined.
 * @param seed Seed.
 * @returns The joined task, or the task itself when none is drawn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { joinFromPool } from "./demos.ts";
 *
 * const one = (subject: string, answer: string) => ({ text: `${subject} was born in which city ?`, subject, answer, hops: [{ entity: subject, relation: "born" as const, answer }] });
 * const task = { question: "vunom was born in which city ?", targets: [["tesla"]], groupId: 3, subQuestions: [one("vunom", "tesla")] };
 * const joined = joinFromPool(task, [one("zorbex", "kalmar"), one("vunom", "olvan")], { share: 1, max: 2 }, 0);
 * assert.deepEqual(joined.subQuestions!.map((q) => q.subject), ["zorbex", "vunom"]);
 * assert.equal(joinFromPool(task, [one("zorbex", "kalmar")], { share: 0, max: 2 }, 0), task);
 * ```
 */
export function joinFromPool(
  task: EpisodeTask,
  pool: readonly SubQuestion[],
  join: { share: number; max: number },
  seed: number,
): EpisodeTask {
  return joinTask(task, carriedObjectives(task.question, taskNames(task), { ...join, pool }, seed));
}

/**
 * The sequences of one episode. A joined task's first turn is not learned
 * (`joined`, {@linkcode joinTask}): it reads the joined question, longer than any training question.
 */
function episodeSequences(episode: Episode, joined: boolean): LmSequence[] {
  const sequences = turnSequences([episode]);
  if (joined) return episode.turns[0]?.sampled.length ? sequences.slice(1) : sequences;
  return sequences;
}

/** Options of {@linkcode teacherDemonstrations}. */
export interface DemoOptions {
  /** Episodes in all (split evenly over the context policies). */
  count: number;
  /** Teacher imperfection. */
  dropProbability: number;
  /** The teacher's memory format. @default createTeacher's ("state-relations") */
  memory?: MemoryFormat;
  /** Seed. */
  seed: number;
  /** Context policies to demonstrate under. @default ["memory", "full"] */
  policies?: ContextPolicy[];
  /** Turn limit (the teacher needs Σ hops + 1 turns: 17 for 8 two-hop objectives). @default 40 */
  maxTurns?: number;
  /** The model's positions: contexts are cut (oldest turns first) to fit. @default 2048 */
  maxPositions?: number;
  /** Tokens per turn budget. @default 64 */
  maxTurnTokens?: number;
  /** Run on these questions (main world's search) instead of the training sets. */
  records?: readonly QaRecord[];
  /**
   * The memory-context episodes' joined tasks (`sft.joinShare`, {@linkcode joinTask}; `data.questionOnce`): that
   * share of them get 1 … `max` objectives of the world's other training questions joined before their own, and
   * are learned from their second turn on. @default none
   */
  join?: { share: number; max: number };
}

/**
 * Runs the teacher on training questions under each context policy and
 * returns their training sequences (and the episodes, for statistics). The
 * questions come in equal shares from the main world and each auxiliary
 * world (searched in its own corpus).
 *
 * Source: this package's scripted teacher (`createTeacher`, docs/design.md#the-task); MemPO (arXiv:2603.00680)
 * cold-start SFT.
 *
 * @param data Loaded data.
 * @param options Count, imperfection, seed, policies.
 * @returns Sequences, episodes, and the context policy of each episode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { teacherDemonstrations } from "./demos.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 8, testCount: 1 });
 * const { sequences, episodes, policies } = await teacherDemonstrations(await loadData(dir), { count: 8, dropProbability: 0, seed: 1 });
 * assert.equal(episodes.length, 8);
 * assert.deepEqual(policies, ["memory", "memory", "memory", "memory", "full", "full", "full", "full"]);
 * // 4 memory episodes of ≥ 3 turns (≥ 2 sequences each), 4 full-history episodes (1 each)
 * assert.ok(sequences.length >= 12);
 * ```
 */
export async function teacherDemonstrations(
  data: LoadedData,
  options: DemoOptions,
): Promise<{ sequences: LmSequence[]; episodes: Episode[]; policies: ContextPolicy[] }> {
  const {
    count,
    dropProbability,
    seed,
    policies = ["memory", "full"],
    maxTurns = 40,
    maxPositions = 2048,
    maxTurnTokens = 64,
  } = options;
  const teacher = createTeacher(data.tokenizer, { dropProbability, seed, memory: options.memory });
  // the main world and each auxiliary world (own corpus and search tool) get an equal share
  const worlds = options.records
    ? [{ train: options.records, search: data.search }]
    : [{ train: data.train, search: data.search }, ...data.aux];
  const episodes: Episode[] = [];
  const policyOf: ContextPolicy[] = [];
  // a joined task's episodes, learned from the second turn on
  const joined: boolean[] = [];
  const per = Math.ceil(count / policies.length);
  for (const [p, contextPolicy] of policies.entries()) {
    for (const [w, world] of worlds.entries()) {
      const n = Math.floor(per / worlds.length) + (w < per % worlds.length ? 1 : 0);
      const records = Array.from({ length: n }, (_, i) => world.train[(p * n + i) % world.train.length]!);
      let tasks = tasksFromRecords(records);
      const joinedTasks = new Set<string | number>(); // group ids of this world's joined tasks
      if (contextPolicy === "memory" && (options.join?.share ?? 0) > 0) {
        const pool = objectivePool(world.train); // the world's training objectives
        if (!data.questionOnce) {
          throw new RangeError(
            "Cannot build the demonstrations: join needs data whose memory context shows the question once " +
              "(data.questionOnce), current value is false",
          );
        }
        tasks = tasks.map((task) => {
          const joinedOne = joinFromPool(task, pool, options.join!, seed + 1);
          if (joinedOne !== task) joinedTasks.add(task.groupId);
          return joinedOne;
        });
      }
      const run = await runEpisodes(teacher, tasks, {
        tokenizer: data.tokenizer,
        search: world.search,
        questionOnce: data.questionOnce,
      }, {
        contextPolicy,
        maxTurns,
        seed,
        maxPositions,
        maxTurnTokens,
      });
      episodes.push(...run);
      policyOf.push(...run.map(() => contextPolicy));
      joined.push(...run.map((e) => contextPolicy === "memory" && joinedTasks.has(e.task.groupId)));
    }
  }
  const kept = episodes.slice(0, count);
  const sequences = kept.flatMap((e, n) => episodeSequences(e, joined[n]!));
  return { sequences, episodes: kept, policies: policyOf.slice(0, count) };
}

/**
 * The SFT demonstrations' options of a run (the teacher, its imperfection,
 * the context limits): the pipeline's SFT stage trains on them, and its
 * evaluation reads their longest contexts.
 *
 * Source: this package (MemPO's cold-start SFT on teacher trajectories).
 *
 * @param config The experiment config.
 * @param maxPositions The model's positions.
 * @returns {@linkcode teacherDemonstrations}' options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { sftDemoOptions } from "./demos.ts";
 *
 * const o = sftDemoOptions(resolveConfig("quick"), 2048);
 * assert.deepEqual([o.count, o.dropProbability, o.memory, o.maxTurnTokens, o.maxPositions], [200, 0.3, "state-relations", 48, 2048]);
 * ```
 */
export function sftDemoOptions(config: ExperimentConfig, maxPositions: number): DemoOptions {
  return {
    count: config.sft.demos,
    dropProbability: config.sft.dropProbability,
    memory: teacherMemory(config),
    seed: sftSeed(config),
    ...(config.sft.joinShare ? { join: { share: config.sft.joinShare, max: DEFAULT_JOIN_MAX } } : {}),
    maxPositions,
    maxTurnTokens: config.rl.maxTurnTokens,
  };
}

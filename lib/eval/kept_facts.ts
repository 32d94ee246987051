/**
 * What an agent's memory kept of the facts a question needs, where a plausible
 * wrong fact was read beside it: the memory decision that the cold-start
 * teacher gets wrong with probability `sft.dropProbability` and that RL is to
 * learn (a person's birthplace against the city it lives in, `WorldSizes.lives`).
 *
 * @module
 */
import type { Episode, EpisodeTask } from "../env/rollout.ts";

/**
 * A task's memory decisions: each objective whose last hop has a decoy, as its needed value and that decoy, unless
 * either word is also an entity the question searches (a subject, or an entity reached on the way), where its
 * presence in a memory would say nothing about the decision.
 *
 * Source: this package.
 *
 * @param task The task (its `subQuestions`).
 * @returns The decisions in objective order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryDecisions } from "./kept_facts.ts";
 *
 * const sub = (subject: string, answer: string, decoy?: string) => ({ text: "", subject, answer, hops: [{ entity: subject, relation: "born" as const, answer, decoy }] });
 * assert.deepEqual(memoryDecisions({ subQuestions: [sub("a", "x", "y"), sub("b", "z")] }), [{ answer: "x", decoy: "y" }]);
 * assert.deepEqual(memoryDecisions({ subQuestions: [sub("a", "x", "y"), sub("y", "z")] }), []); // y is searched
 * ```
 */
export function memoryDecisions(
  task: Pick<EpisodeTask, "subQuestions">,
): { answer: string; decoy: string }[] {
  const subs = task.subQuestions ?? [];
  const searched = new Set(subs.flatMap((q) => q.hops.map((h) => h.entity)));
  return subs.flatMap((q) => {
    const decoy = q.hops.at(-1)?.decoy;
    return decoy === undefined || searched.has(decoy) || searched.has(q.answer) ? [] : [{ answer: q.answer, decoy }];
  });
}

/** Counts of {@linkcode keptFacts}. */
export interface KeptFacts {
  /** Objectives with a decoy (a plausible wrong fact in the same search results). */
  decisions: number;
  /** Of those, how many the final memory holds the needed fact of. */
  needed: number;
  /** Of those, how many it holds the decoy of instead. */
  decoy: number;
}

/**
 * The memory decisions of episodes, read off each episode's final `<mem>`:
 * for every objective whose last hop has a decoy, whether the memory's words
 * hold the needed value (the gold answer), else the decoy, else neither (the
 * objective was never read, or something else was kept); objectives whose
 * answer or decoy the question also searches are left out
 * ({@linkcode memoryDecisions}). Names are single words, so a word's presence
 * is the fact's.
 *
 * ```text
 * needed share = needed / decisions      decoy share = decoy / decisions
 * ```
 *
 * Source: this package (the memory decision of the task, `DECOY_RELATION` in `lib/env/world.ts`).
 *
 * @param episodes Finished episodes whose tasks carry `subQuestions`.
 * @returns The counts, summed over the episodes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keptFacts } from "./kept_facts.ts";
 *
 * const hop = { entity: "muzox", relation: "lives" as const, answer: "vetox", decoy: "kalmar" };
 * const sub = { text: "muzox lives in which city ?", subject: "muzox", answer: "vetox", hops: [hop] };
 * const episode = (mem: string) => ({
 *   task: { question: "", targets: [["vetox"]], groupId: 0, subQuestions: [sub] },
 *   turns: [{ text: `<mem> ${mem} </mem> <think> answer </think> <answer> x </answer>` }],
 * });
 * const counts = keptFacts([episode("| vetox"), episode("| kalmar"), episode("muzox lives |")] as never);
 * assert.deepEqual(counts, { decisions: 3, needed: 1, decoy: 1 });
 * ```
 */
export function keptFacts(episodes: readonly Pick<Episode, "task" | "turns">[]): KeptFacts {
  const counts: KeptFacts = { decisions: 0, needed: 0, decoy: 0 };
  for (const e of episodes) {
    const last = e.turns.at(-1)?.text ?? "";
    const mem = /<mem>(.*?)<\/mem>/s.exec(last)?.[1] ?? "";
    const words = new Set(mem.split(/\s+/).filter((w) => w !== ""));
    for (const { answer, decoy } of memoryDecisions(e.task)) {
      counts.decisions += 1;
      if (words.has(answer)) counts.needed += 1;
      else if (words.has(decoy)) counts.decoy += 1;
    }
  }
  return counts;
}

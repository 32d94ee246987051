/**
 * A policy whose first turns of some episodes are a scripted teacher's: RL on
 * joined tasks (`rl.joinShare`), where the teacher extracts the joined
 * question's open objectives and the model carries them from the second turn.
 *
 * @module
 */
import { type AgentPolicy, scriptedTurn, type TurnOutput } from "./rollout.ts";

/**
 * Routes each request by its episode: the turns before the task's
 * `learnFrom` to `teacher`, every other turn to `policy` (one call each per
 * batch, the answers back in request order). `outcomeTurnSequences` learns
 * none of the teacher's turns.
 *
 * ```text
 * turn k of a task:  k < task.learnFrom ? teacher : policy
 * ```
 *
 * Source: this package (MEM1's state past the training questions' length, as `sft.joinShare` does for SFT).
 *
 * @param teacher Writes the turns before `learnFrom` (a scripted teacher, `createTeacher`).
 * @param policy Writes the rest (the model).
 * @returns The combined policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { teacherFirst } from "./teacher_first.ts";
 *
 * const says = (word: number) => ({
 *   nextTurns: (requests: readonly unknown[]) => Promise.resolve(requests.map(() => ({ tokens: [word], logProbs: [0] }))),
 * });
 * const episode = (learnFrom: number, turns: number) => ({ task: { learnFrom }, turns: Array(turns) }) as never;
 * const out = await teacherFirst(says(1), says(2)).nextTurns(
 *   [{ episode: episode(1, 0), context: [] }, { episode: episode(1, 1), context: [] }, { episode: episode(0, 0), context: [] }],
 *   { maxNewTokens: 4, stopIds: [], seed: 0 },
 * );
 * assert.deepEqual(out.map((o) => o.tokens[0]), [1, 2, 2]);
 * ```
 */
export function teacherFirst(teacher: AgentPolicy, policy: AgentPolicy): AgentPolicy {
  return {
    async nextTurns(requests, options) {
      const scripted = requests.map((r) => scriptedTurn(r.episode.task, r.episode.turns.length));
      const pick = (want: boolean) => requests.filter((_, i) => scripted[i] === want);
      const [byTeacher, byPolicy] = await Promise.all([
        scripted.some((s) => s) ? teacher.nextTurns(pick(true), options) : Promise.resolve([]),
        scripted.some((s) => !s) ? policy.nextTurns(pick(false), options) : Promise.resolve([]),
      ]);
      let [t, p] = [0, 0];
      return scripted.map((s): TurnOutput => (s ? byTeacher[t++]! : byPolicy[p++]!));
    },
  };
}

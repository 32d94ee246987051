/**
 * Where an episode first leaves the scripted teacher's path: the first turn
 * whose tokens are not the teacher's turn for that task and turn index, and
 * the first token of it that differs. The teacher reads only the task and the
 * turn count, so its path is the task's own, whatever the policy wrote before.
 *
 * @module
 */
import type { AgentPolicy, EpisodeTask } from "../env/rollout.ts";
import { turnStopIds } from "../env/rollout.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import type { TeacherLeaveRecord } from "./episode_record.ts";

/**
 * The first turn where an episode's words differ from the teacher's turn
 * for the same task and turn index, with the first differing token; null
 * when every turn is the teacher's; undefined when the teacher cannot write
 * the task (no sub-questions).
 *
 * ```text
 * for k = 0, 1, …:  want = teacher(task, k);  got = turns[k]
 *                   i = first index with want[i] ≠ got[i] (or the shorter's end)
 *                   i < max(|want|, |got|) → { turn: k, token: i, want: want[i] ?? "", got: got[i] ?? "" }
 * ```
 *
 * Source: this package (the free-running reading of `teacherPath`: where a policy's own episode first departs from
 * the demonstrations it was trained on).
 *
 * @param teacher The scripted teacher without drops (`createTeacher(tokenizer, { dropProbability: 0, memory })`).
 * @param tokenizer The tokenizer.
 * @param task The episode's task.
 * @param turns Each turn's sampled words (`TurnRecord.tokens`).
 * @returns Where it leaves the path, null, or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { teacherLeave } from "./teacher_leave.ts";
 *
 * const q = [{ text: "zorbex was born in which city ?", subject: "zorbex", answer: "kalmar", hops: [{ entity: "zorbex", relation: "born" as const, answer: "kalmar" }] }];
 * const tok = buildTokenizer(["zorbex born kalmar vunom |"]);
 * const teacher = createTeacher(tok, { dropProbability: 0 });
 * const task = { question: q[0]!.text, targets: [["kalmar"]], groupId: 0, subQuestions: q };
 * const first = "zorbex born | </mem> <think> zorbex born </think> <search> zorbex born </search>".split(" ");
 * assert.equal(await teacherLeave(teacher, tok, task, [first]), null);
 * const off = [...first.slice(0, 6), "vunom", ...first.slice(7)];
 * assert.deepEqual(await teacherLeave(teacher, tok, task, [off]), { turn: 0, token: 6, want: "born", got: "vunom" });
 * assert.equal(await teacherLeave(teacher, tok, { ...task, subQuestions: undefined }, [first]), undefined);
 * ```
 */
export async function teacherLeave(
  teacher: AgentPolicy,
  tokenizer: Tokenizer,
  task: EpisodeTask,
  turns: readonly (readonly string[])[],
): Promise<TeacherLeaveRecord | null | undefined> {
  if (task.subQuestions === undefined) return undefined;
  const requests = turns.map((_, k) => ({
    // the teacher reads the task and how many turns came before (not the context, not the turns themselves)
    episode: { id: 0, task, turns: new Array(k).fill(null), done: false } as never,
    context: [],
  }));
  const written = await teacher.nextTurns(requests, {
    maxNewTokens: 1 << 16,
    stopIds: turnStopIds(tokenizer),
    seed: 0,
  });
  for (const [k, got] of turns.entries()) {
    const want = written[k]!.tokens.map((id) => tokenizer.tokens[id] ?? "<unk>");
    let i = 0;
    while (i < want.length && i < got.length && want[i] === got[i]) i++;
    if (i < want.length || i < got.length) return { turn: k, token: i, want: want[i] ?? "", got: got[i] ?? "" };
  }
  return null;
}

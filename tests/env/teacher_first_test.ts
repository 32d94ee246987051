import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { teacherFirst } from "../../lib/env/teacher_first.ts";
import { type AgentPolicy, type EpisodeTask, runEpisodes, type TurnRequest } from "../../lib/env/rollout.ts";

/** A policy that answers every request with `[word]` and records each batch it was asked. */
function recorder(word: number): AgentPolicy & { batches: { ids: number[]; options: unknown }[] } {
  const batches: { ids: number[]; options: unknown }[] = [];
  return {
    batches,
    nextTurns(requests, options) {
      batches.push({ ids: requests.map((r) => r.context[0]!), options });
      return Promise.resolve(requests.map(() => ({ tokens: [word], logProbs: [-1] })));
    },
  };
}

/** A request of an episode with `turns` turns so far whose task learns from `learnFrom`; `id` is its context. */
const request = (id: number, learnFrom: number | undefined, turns: number): TurnRequest => ({
  episode: { task: { learnFrom }, turns: Array(turns) } as never,
  context: [id],
});

Deno.test("teacherFirst() routes each turn by its episode's learnFrom, one call per side, answers in request order", async () => {
  const [teacher, policy] = [recorder(7), recorder(9)];
  const options = { maxNewTokens: 5, stopIds: [3], seed: 11 };
  const requests = [
    request(0, 2, 0), // teacher
    request(1, 2, 2), // policy: turn 2 is learnt
    request(2, undefined, 0), // policy: no learnFrom
    request(3, 2, 1), // teacher
    request(4, 1, 1), // policy
    request(5, 0, 0), // policy
  ];
  const out = await teacherFirst(teacher, policy).nextTurns(requests, options);
  assert.deepEqual(out.map((o) => o.tokens[0]), [7, 9, 9, 7, 9, 9]);
  assert.deepEqual(teacher.batches, [{ ids: [0, 3], options }]);
  assert.deepEqual(policy.batches, [{ ids: [1, 2, 4, 5], options }]);
  // a side with nothing to write is not asked
  const onlyPolicy = [recorder(7), recorder(9)] as const;
  await teacherFirst(...onlyPolicy).nextTurns([request(0, 1, 3)], options);
  assert.deepEqual([onlyPolicy[0].batches.length, onlyPolicy[1].batches.length], [0, 1]);
  const onlyTeacher = [recorder(7), recorder(9)] as const;
  await teacherFirst(...onlyTeacher).nextTurns([request(0, 4, 3)], options);
  assert.deepEqual([onlyTeacher[0].batches.length, onlyTeacher[1].batches.length], [1, 0]);
  assert.deepEqual(await teacherFirst(recorder(7), recorder(9)).nextTurns([], options), []);
});

Deno.test("teacherFirst() in the agent loop: the teacher's turns before learnFrom, the policy's after, scored as one episode", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await buildData(dir, 5, { trainCount: 8, testCount: 4 });
    const data = await loadData(dir);
    const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
    const records = data.test.get(2)!;
    const task = (learnFrom: number, i: number): EpisodeTask => ({
      question: records[i]!.question,
      targets: records[i]!.targets,
      subQuestions: records[i]!.subQuestions,
      groupId: i,
      learnFrom,
    });
    const asked: number[] = []; // the turn index of each request the teacher-as-policy got
    const counting: AgentPolicy = {
      nextTurns(requests, options) {
        asked.push(...requests.map((r) => r.episode.turns.length));
        return teacher.nextTurns(requests, options);
      },
    };
    const opts = { contextPolicy: "memory" as const, maxTurns: 16 };
    const alone = await runEpisodes(teacher, [task(0, 0), task(0, 1)], data, opts);
    const split = await runEpisodes(teacherFirst(teacher, counting), [task(2, 0), task(2, 1)], data, opts);
    // the same scripted writer on both sides: the same episodes, turn for turn
    assert.deepEqual(split.map((e) => e.turns.map((t) => t.text)), alone.map((e) => e.turns.map((t) => t.text)));
    assert.deepEqual(split.map((e) => e.reward), [1, 1]);
    // the second writer wrote exactly the turns from index 2 on
    const turns = alone.map((e) => e.turns.length);
    assert.ok(turns.every((n) => n > 2), `turns ${turns}`);
    const byValue = (a: number, b: number) => a - b;
    assert.deepEqual(
      asked.sort(byValue),
      turns.flatMap((n) => Array.from({ length: n - 2 }, (_, k) => k + 2)).sort(byValue),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

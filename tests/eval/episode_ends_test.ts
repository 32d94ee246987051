import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { type AgentPolicy, runEpisodes, type TurnRequest } from "../../lib/env/rollout.ts";
import { encode } from "../../lib/text/tokenizer.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { episodeEnd, episodeEnds } from "../../lib/eval/episode_ends.ts";
import { episodeEndsMarkdown, evaluateCell } from "../../lib/eval/evaluate.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 5, { trainCount: 8, testCount: 6, testObjectives: [1, 2] });
const data = await loadData(dir);
const tasks = tasksFromRecords(data.test.get(2)!);

/** A policy that writes the same tokens at every turn. */
const scripted = (text: string): AgentPolicy => {
  const ids = encode(data.tokenizer, text).ids;
  return {
    nextTurns: (reqs: readonly TurnRequest[]) =>
      Promise.resolve(reqs.map(() => ({ tokens: ids, logProbs: ids.map(() => 0) }))),
  };
};

Deno.test("episodeEnd: runEpisodes' four ways to end, each from real episodes", async () => {
  const run = (policy: AgentPolicy, maxTurns: number, maxTurnTokens = 96) =>
    runEpisodes(policy, tasks, data, { contextPolicy: "memory", maxTurns, maxTurnTokens });
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
  assert.deepEqual((await run(teacher, 12)).map(episodeEnd), tasks.map(() => "answer"));
  // the teacher stopped before its answer: every turn well formed, the last a search
  assert.deepEqual((await run(teacher, 2)).map(episodeEnd), tasks.map(() => "turn limit"));
  // a memory that repeats one word until the turn's token limit
  const loop = await run(scripted(Array(40).fill("answer").join(" ")), 4, 32);
  assert.deepEqual(loop.map(episodeEnd), tasks.map(() => "memory not closed"));
  assert.ok(loop.every((e) => e.turns.length === 1 && e.turns[0]!.sampled.length === 32));
  // a closed memory, then an answer before any search
  const early = await run(scripted("answer </mem> <think> answer </think> <answer> answer </answer>"), 4);
  assert.deepEqual(early.map(episodeEnd), tasks.map(() => "other format break"));
  assert.match(early[0]!.error!, /answered without any search/);
});

Deno.test("evaluateCell: the ends' shares sum to 1 and their answer share is the format-valid rate", async () => {
  const agent = {
    name: "Teacher",
    policy: createTeacher(data.tokenizer, { dropProbability: 0 }),
    maxPositions: 1024,
    contextPolicy: "memory" as const,
  };
  const ok = await evaluateCell(agent, data, 2, { questions: 6, maxTurns: 12, maxTurnTokens: 96 });
  assert.deepEqual(ok.ends, { "answer": 1, "memory not closed": 0, "other format break": 0, "turn limit": 0 });
  const short = await evaluateCell(agent, data, 2, { questions: 6, maxTurns: 2, maxTurnTokens: 96 });
  assert.equal(short.ends!["turn limit"], 1);
  for (const row of [ok, short]) {
    assert.ok(Math.abs(Object.values(row.ends!).reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.equal(row.ends!.answer, row.formatValid);
  }
  const md = episodeEndsMarkdown([ok, { ...short, objectives: 1 }]);
  assert.match(md, /^## How the episodes end\n/);
  assert.match(md, /\| Teacher \(memory\) \| 0\.00 \/ 0\.00 \/ 0\.00 \/ 1\.00 \| 1\.00 \/ 0\.00 \/ 0\.00 \/ 0\.00 \|/);
});

Deno.test("episodeEnds refuses an empty list", () => {
  assert.throws(() => episodeEnds([]), /no episodes/);
});

import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { tasksFromRecords, teacherDemonstrations, turnSequences } from "../../lib/train/demos.ts";
import { decode } from "../../lib/text/tokenizer.ts";

Deno.test("teacherDemonstrations(): per-turn sequences, loss only on the teacher's tokens, both context policies", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 14, { trainCount: 10, testCount: 1 });
  const data = await loadData(dir);
  const { sequences, episodes } = await teacherDemonstrations(data, { count: 10, dropProbability: 0, seed: 2 });
  assert.equal(episodes.length, 10);
  assert.ok(episodes.every((e) => e.reward === 1));
  assert.equal(sequences.length, episodes.reduce((a, e) => a + e.turns.length, 0));
  for (const s of sequences) {
    const first = s.lossMask.indexOf(1);
    assert.ok(first > 0 && s.lossMask.slice(first).every((m) => m === 1), "context 0s then turn 1s");
    assert.ok(
      decode(data.tokenizer, s.tokens.slice(0, first)).endsWith("<|assistant|> <mem>"),
      "forced prefix is context",
    );
  }
  const full = episodes.slice(5).flatMap((e) => e.turns.at(-1)!.context);
  const mem = episodes.slice(0, 5).flatMap((e) => e.turns.at(-1)!.context);
  assert.ok(full.length > mem.length, "the second half runs under the full-history policy");
  assert.deepEqual(turnSequences([]), []);
  assert.equal(tasksFromRecords(data.train, 100)[3]!.groupId, 103);
});

Deno.test("teacherDemonstrations() draws equal shares from the main and auxiliary worlds, each searched in its own corpus", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 15, { trainCount: 8, testCount: 1, testObjectives: [1], auxWorlds: 1 });
  const data = await loadData(dir);
  const { episodes } = await teacherDemonstrations(data, { count: 8, dropProbability: 0, seed: 3 });
  assert.equal(episodes.length, 8);
  // the teacher reads the right world's documents: every episode is answered correctly
  assert.ok(episodes.every((e) => e.reward === 1), "teacher scores 1 in both worlds");
  const questions = episodes.map((e) => e.task.question);
  const main = new Set(data.train.map((r) => r.question));
  const aux = new Set(data.aux[0]!.train.map((r) => r.question));
  assert.equal(questions.filter((q) => main.has(q) && !aux.has(q)).length, 4);
  assert.equal(questions.filter((q) => aux.has(q) && !main.has(q)).length, 4);
});

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

import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { goldContinuation, memoryRewardPairs } from "../../lib/env/memory_inputs.ts";
import { decode } from "../../lib/text/tokenizer.ts";

Deno.test("memoryRewardPairs(): turns ≥ 2 with a <mem> span; contexts end with that turn's memory", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 9, { trainCount: 5, testCount: 2 });
  const data = await loadData(dir);
  const r = data.train[0]!;
  const [ep] = await runEpisodes(
    createTeacher(data.tokenizer, { dropProbability: 0 }),
    [{ question: r.question, targets: r.targets, groupId: 0, subQuestions: r.subQuestions }],
    data,
    { contextPolicy: "memory" },
  );
  const pairs = memoryRewardPairs(ep!, data.tokenizer);
  assert.equal(pairs.length, ep!.turns.length - 1);
  for (const p of pairs) {
    const mem = decode(data.tokenizer, p.memContext);
    const full = decode(data.tokenizer, p.fullContext);
    const memText = ep!.turns[p.turn]!.parsed!.mem;
    assert.ok(mem.endsWith(`<|assistant|> <mem> ${memText} </mem>`), mem);
    assert.ok(full.endsWith(`<|assistant|> <mem> ${memText} </mem>`));
    assert.ok(mem.startsWith("<|system|>") && mem.includes(r.question));
    assert.ok(!mem.includes("<information>"), "memory context has no history");
    assert.equal((full.match(/<information>/g) ?? []).length, p.turn, "full context has every earlier tool result");
    const gold = decode(data.tokenizer, p.continuation.filter((_, i) => p.answerMask[i] === 1));
    assert.equal(gold, r.targets.map((t) => t[0]).join(" "));
  }
  const { continuation } = goldContinuation(data.tokenizer, r.targets);
  assert.ok(decode(data.tokenizer, continuation).startsWith("<think> answer </think> <answer>"));
  assert.deepEqual(memoryRewardPairs(ep!, data.tokenizer, 10), [], "pairs longer than maxPositions are skipped");
});

import assert from "node:assert/strict";
import { buildCorpus, generateWorld } from "../../lib/env/world.ts";
import { readDrillRecords, TWIN_RELATIONS } from "../../lib/train/read_drill.ts";

Deno.test("readDrillRecords(): one-objective questions on twin facts, each answer the world's fact, each relation of a pair asked about half the time", () => {
  const world = generateWorld(3, { lives: 1 });
  const records = readDrillRecords(buildCorpus(world), { count: 2000, seed: 4 });
  const asked = new Map<string, number>();
  for (const r of records) {
    const q = r.subQuestions![0]!;
    const [hop] = q.hops;
    assert.equal(q.hops.length, 1);
    assert.equal(world.byName.get(q.subject)!.facts[hop!.relation], q.answer, r.question);
    assert.deepEqual(r.targets, [[q.answer]]);
    assert.ok(r.question.startsWith(`${q.subject} `) && r.question.endsWith(" ?"), r.question);
    asked.set(hop!.relation, (asked.get(hop!.relation) ?? 0) + 1);
  }
  for (const [a, b] of TWIN_RELATIONS) {
    const [x, y] = [asked.get(a) ?? 0, asked.get(b) ?? 0];
    assert.ok(x + y > 300 && Math.abs(x / (x + y) - 0.5) < 0.06, `${a} ${x}, ${b} ${y}`);
  }
  // the same seed, the same questions
  assert.deepEqual(readDrillRecords(buildCorpus(world), { count: 50, seed: 4 }), records.slice(0, 50));
});

Deno.test("readDrillRecords(): a corpus with no twin facts is refused, naming the setting", () => {
  assert.throws(
    () => readDrillRecords([{ id: "zuvi", text: "zuvi capital lokrodel ." }], { count: 1 }),
    /no document states both relations of a pair \(data\.sizes\.lives 0\?\)/,
  );
});

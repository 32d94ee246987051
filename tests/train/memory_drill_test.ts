import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { corpusNames } from "../../lib/env/world.ts";
import { decode } from "../../lib/text/tokenizer.ts";
import { memoryDrillSequences } from "../../lib/train/memory_drill.ts";
import { TEMPLATES } from "../../lib/env/questions.ts";
import { parseStateMemory } from "../../lib/env/teacher.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 3, { trainCount: 4, testCount: 2, testObjectives: [2] });
const data = await loadData(dir);
const names = corpusNames(data.corpus);

Deno.test("memoryDrillSequences(): the first turn's extraction, each item a subject and its template's relations, ';' between them", () => {
  const relationWords = new Set(["born", "lives", "located", "capital", "founder", "headquarters", "director"]);
  const items = (text: string) => text.trim() === "" ? [] : text.split(" ; ").map((item) => item.trim().split(" "));
  const drills = memoryDrillSequences(data.tokenizer, names, { count: 60, maxItems: 10, seed: 7 });
  const lengths = new Set<number>();
  for (const s of drills) {
    const first = s.lossMask.indexOf(1);
    assert.ok(s.lossMask.slice(first).every((m) => m === 1), "the loss covers the turn only, to its end");
    const context = decode(data.tokenizer, s.tokens.slice(0, first));
    const target = decode(data.tokenizer, s.tokens.slice(first));
    assert.ok(!s.tokens.includes(data.tokenizer.unkId), context);
    const [mem, turn] = target.split(" </mem> ");
    const [open, done] = mem!.split("|").map(items);
    for (const item of open!) assert.ok(item.slice(1).every((w) => relationWords.has(w)) && item.length >= 2, target);
    // the rest of the turn: the head's first hop searched
    const hop = `${open![0]![0]} ${open![0]![1]}`;
    assert.equal(turn, `<think> ${hop} </think> <search> ${hop} </search>`);
    // each part's subject and the relations of the template it is written in
    const question = context.split("<|user|> ")[1]!.split(" <|end|>")[0]!;
    const parts = question.split(" ; ");
    assert.deepEqual(open!.map((item) => item[0]), parts.map((part) => part.split(" ")[0]));
    parts.forEach((part, i) => {
      const template = Object.values(TEMPLATES).flat().find((t) => t.text === part.replace(/^\S+/, "{x}"))!;
      assert.ok(template, part);
      assert.deepEqual(open![i]!.slice(1), template.path);
    });
    assert.deepEqual(done, []);
    lengths.add(open!.length);
  }
  assert.ok(Math.max(...lengths) >= 8, `lists as long as 8-objective questions: ${[...lengths]}`);
  // seeded
  assert.deepEqual(memoryDrillSequences(data.tokenizer, names, { count: 4, seed: 7 }), drills.slice(0, 4));
  assert.throws(
    () => memoryDrillSequences(data.tokenizer, names.slice(0, 5), { count: 1 }),
    /more names than maxItems/,
  );
});

Deno.test("memoryDrillSequences() bare: the same drills with no ';' in the memory, read back as the same items", () => {
  const options = { count: 24, maxItems: 10, seed: 7 };
  const withSemis = memoryDrillSequences(data.tokenizer, names, options);
  const bare = memoryDrillSequences(data.tokenizer, names, { ...options, bare: true });
  const memory = (s: { tokens: readonly number[]; lossMask: readonly number[] }) =>
    decode(data.tokenizer, s.tokens.slice(s.lossMask.indexOf(1))).split(" </mem>")[0]!;
  bare.forEach((s, n) => {
    assert.ok(!memory(s).includes(";"), memory(s));
    assert.deepEqual(parseStateMemory(memory(s)), parseStateMemory(memory(withSemis[n]!)));
    // the same question
    const context = (x: typeof s) =>
      decode(data.tokenizer, x.tokens.slice(0, x.lossMask.indexOf(1))).split(" <|end|> ").slice(0, 1).join();
    assert.equal(context(s), context(withSemis[n]!));
  });
});

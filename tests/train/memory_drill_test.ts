import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { decode } from "../../lib/text/tokenizer.ts";
import { memoryDrillSequences } from "../../lib/train/memory_drill.ts";
import { TEMPLATES } from "../../lib/env/questions.ts";
import { parseStateMemory } from "../../lib/env/teacher.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 3, { trainCount: 4, testCount: 2, testObjectives: [2], markers: false });
const data = await loadData(dir);
const names = data.corpus.map((d) => d.id);

Deno.test("memoryDrillSequences(): extraction copies the parts' first words; pop drops the head and appends the fact's answer", () => {
  const drills = memoryDrillSequences(data.tokenizer, names, { count: 60, maxItems: 10, seed: 7 });
  const lengths = new Set<number>();
  for (const [n, s] of drills.entries()) {
    const first = s.lossMask.indexOf(1);
    assert.ok(s.lossMask.slice(first).every((m) => m === 1), "the loss covers the memory only, to its end");
    const context = decode(data.tokenizer, s.tokens.slice(0, first));
    const target = decode(data.tokenizer, s.tokens.slice(first));
    assert.ok(!s.tokens.includes(data.tokenizer.unkId), context);
    assert.match(target, / <\/mem>$/);
    const [open, done] = target.replace(" </mem>", "").split("|").map((p) => p.trim().split(" ").filter(Boolean));
    if (n % 2 === 0) { // extract: the first word of every part of the question, in order
      const question = context.split("<|user|> ")[1]!.split(" <|end|>")[0]!;
      assert.deepEqual(open, question.split(" ; ").map((part) => part.split(" ")[0]));
      assert.deepEqual(done, []);
      lengths.add(open!.length);
    } else { // pop: the previous memory's open list without its head, its answers and the head's answer last
      const previous = context.match(/<mem> (.*?) <\/mem>/)![1]!;
      const [pOpen, pDone] = previous.split("|").map((p) => p.trim().split(" ").filter(Boolean));
      const head = context.match(/<think> (\S+) (\S+) <\/think>/)!;
      const answer = context.match(new RegExp(`${head[1]} ${head[2]} (\\S+) \\.`))![1]!;
      const rest = pOpen![1] !== undefined && ["born", "located", "capital", "founder", "headquarters", "director"]
          .includes(pOpen![1]!)
        ? pOpen!.slice(2)
        : pOpen!.slice(1);
      assert.deepEqual(open, rest);
      assert.deepEqual(done, [...pDone!, answer]);
      lengths.add(pOpen!.length);
    }
  }
  assert.ok(Math.max(...lengths) >= 8, `lists as long as 8-objective questions: ${[...lengths]}`);
  // seeded
  assert.deepEqual(memoryDrillSequences(data.tokenizer, names, { count: 4, seed: 7 }), drills.slice(0, 4));
  assert.throws(
    () => memoryDrillSequences(data.tokenizer, names.slice(0, 5), { count: 1 }),
    /more names than maxItems/,
  );
});

Deno.test("memoryDrillSequences() with relations: items are names with their template's relations, ';' between them", () => {
  const relationWords = new Set(["born", "located", "capital", "founder", "headquarters", "director"]);
  const items = (text: string) => text.trim() === "" ? [] : text.split(" ; ").map((item) => item.trim().split(" "));
  const drills = memoryDrillSequences(data.tokenizer, names, { count: 60, maxItems: 10, seed: 7, relations: true });
  const lengths = new Set<number>();
  for (const [n, s] of drills.entries()) {
    const first = s.lossMask.indexOf(1);
    const context = decode(data.tokenizer, s.tokens.slice(0, first));
    const target = decode(data.tokenizer, s.tokens.slice(first));
    assert.ok(!s.tokens.includes(data.tokenizer.unkId), context);
    const [mem, turn] = target.split(" </mem> ");
    const [open, done] = mem!.split("|").map(items);
    for (const item of open!) assert.ok(item.slice(1).every((w) => relationWords.has(w)) && item.length >= 2, target);
    // the rest of the turn: the new head's next hop searched, or the answers given when nothing is open
    if (open!.length > 0) {
      const hop = `${open![0]![0]} ${open![0]![1]}`;
      assert.equal(turn, `<think> ${hop} </think> <search> ${hop} </search>`);
    } else {assert.equal(
        turn,
        `<think> answer </think> <answer> ${done!.map((a) => a.join(" ")).join(" ; ")} </answer>`,
      );}
    if (n % 2 === 0) { // extract: each part's subject and the relations of the template it is written in
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
    } else { // pop: the head (one relation left) goes, its answer is appended, the rest is copied item for item
      const previous = context.match(/<mem> (.*?) <\/mem>/)![1]!;
      const [pOpen, pDone] = previous.split("|").map(items);
      assert.equal(pOpen![0]!.length, 2, previous);
      // a turn of a question: one part per objective, answered or open; the head's fact is the first document
      const question = context.split("<|user|> ")[1]!.split(" <|end|>")[0]!;
      assert.equal(question.split(" ; ").length, pOpen!.length + pDone!.length, question);
      const answer = context.match(new RegExp(`\\[ doc 1 \\] ${pOpen![0]!.join(" ")} (\\S+) \\.`))![1]!;
      assert.deepEqual(open, pOpen!.slice(1));
      assert.deepEqual(done!.map((a) => a.join(" ")), [...pDone!.map((a) => a.join(" ")), answer]);
      lengths.add(pOpen!.length);
    }
  }
  assert.ok(Math.max(...lengths) >= 8, `lists as long as 8-objective questions: ${[...lengths]}`);
  assert.ok(drills.some((s) => decode(data.tokenizer, s.tokens).endsWith("</answer>")), "some pops answer");
  // the subjects-only style draws the same as before the option existed (no template drawn)
  assert.deepEqual(
    memoryDrillSequences(data.tokenizer, names, { count: 4, seed: 7, relations: false }),
    memoryDrillSequences(data.tokenizer, names, { count: 4, seed: 7 }),
  );
});

Deno.test("memoryDrillSequences() with relations and bare: the same drills with no ';' in the memory, read back as the same items", () => {
  const options = { count: 24, maxItems: 10, seed: 7, relations: true };
  const withSemis = memoryDrillSequences(data.tokenizer, names, options);
  const bare = memoryDrillSequences(data.tokenizer, names, { ...options, bare: true });
  const memory = (s: { tokens: readonly number[]; lossMask: readonly number[] }) =>
    decode(data.tokenizer, s.tokens.slice(s.lossMask.indexOf(1))).split(" </mem>")[0]!;
  bare.forEach((s, n) => {
    assert.ok(!memory(s).includes(";"), memory(s));
    assert.deepEqual(parseStateMemory(memory(s)), parseStateMemory(memory(withSemis[n]!)));
    // the context (the question, the previous turn) differs only in the previous memory's `;`
    const context = (x: typeof s) =>
      decode(data.tokenizer, x.tokens.slice(0, x.lossMask.indexOf(1))).split(" <|end|> ").slice(0, 1).join();
    assert.equal(context(s), context(withSemis[n]!));
  });
});

import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { decode } from "../../lib/text/tokenizer.ts";
import { memoryDrillSequences } from "../../lib/train/memory_drill.ts";

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

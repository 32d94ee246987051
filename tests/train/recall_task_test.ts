import assert from "node:assert/strict";
import { buildTokenizer, SPECIAL_TOKENS } from "../../lib/text/tokenizer.ts";
import { recallTaskSequences } from "../../lib/train/recall_task.ts";
import { PRESETS, validateConfig } from "../../lib/config/experiment.ts";

const WORDS = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");

Deno.test("recallTaskSequences(): a question's pair occurs once in the facts, neither word alone decides, loss on its object", () => {
  const tok = buildTokenizer([`${WORDS} . ;`]);
  const dot = tok.vocab.get(".")!;
  const sep = tok.vocab.get(";")!;
  const seqs = recallTaskSequences(tok, { count: 300, subjects: [2, 5], questions: 3, seed: 4 });
  assert.deepEqual(recallTaskSequences(tok, { count: 300, subjects: [2, 5], questions: 3, seed: 4 }), seqs);
  assert.notDeepEqual(recallTaskSequences(tok, { count: 300, subjects: [2, 5], questions: 3, seed: 5 }), seqs);
  const subjectCounts = new Set<number>();
  for (const s of seqs) {
    const end = s.tokens.indexOf(tok.special("<|end|>"));
    assert.equal(s.tokens[end + 1], tok.special("<|assistant|>"));
    const body = s.tokens.slice(1, end);
    assert.equal(body.length % 4, 0);
    const facts = Array.from({ length: body.length / 4 }, (_, i) => body.slice(4 * i, 4 * i + 4));
    assert.ok(facts.every((f) => f[3] === dot && f.slice(0, 3).every((w) => w >= SPECIAL_TOKENS.length)));
    // each subject has two facts with different relations; four relations in all; every object distinct
    const bySubject = Map.groupBy(facts, (f) => f[0]!);
    subjectCounts.add(bySubject.size);
    for (const fs of bySubject.values()) assert.ok(fs.length === 2 && fs[0]![1] !== fs[1]![1]);
    assert.ok(new Set(facts.map((f) => f[1])).size <= 4);
    assert.equal(new Set(facts.map((f) => f[2])).size, facts.length);
    // the questions: "s r o" separated by ";", loss on each o only
    const asked = s.tokens.slice(end + 2);
    const questions = asked.join(",").split(`,${sep},`).map((q) => q.split(",").map(Number));
    assert.equal(questions.length, 3);
    assert.equal(s.lossMask.reduce((a, b) => a + b, 0), 3);
    for (const [subject, relation, object] of questions) {
      const match = facts.filter((f) => f[0] === subject && f[1] === relation);
      assert.equal(match.length, 1);
      assert.equal(match[0]![2], object);
    }
    s.lossMask.forEach((m, i) => m === 1 && assert.ok(questions.some((q) => q[2] === s.tokens[i])));
  }
  assert.deepEqual([...subjectCounts].sort(), [2, 3, 4, 5]);
});

Deno.test("recallTaskSequences(): a vocabulary without '.' or ';', or bad options, is refused with the value", () => {
  assert.throws(() => recallTaskSequences(buildTokenizer([WORDS]), { count: 1 }), /needs '\.' and ';'/);
  const tok = buildTokenizer([`${WORDS} . ;`]);
  assert.throws(() => recallTaskSequences(tok, { count: 1, subjects: [3, 2] }), /current value is 3,2/);
  assert.throws(() => recallTaskSequences(tok, { count: 1, questions: 0 }), /current value is 0/);
});

Deno.test("sft.recallLoss needs a horizon past sft.recallSteps", () => {
  const base = PRESETS.default;
  assert.throws(
    () => validateConfig({ ...base, sft: { ...base.sft, recallSteps: 200, recallHorizon: 200, recallLoss: 0.3 } }),
    /sft.recallHorizon must be > sft.recallSteps \(200\) with sft.recallLoss set, current value is 200/,
  );
  assert.throws(
    () => validateConfig({ ...base, sft: { ...base.sft, recallSteps: 200, recallHorizon: 100 } }),
    /sft.recallHorizon must be ≥ sft.recallSteps \(200\), current value is 100/,
  );
});

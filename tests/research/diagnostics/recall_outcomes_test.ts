import assert from "node:assert/strict";
import { buildTokenizer } from "../../../lib/text/tokenizer.ts";
import { recallTaskSequences } from "../../../lib/train/recall_task.ts";
import { recallOutcomes } from "../../../research/diagnostics/recall_outcomes.ts";

// <|user|>=0  s1=1 s2=2  ra=3 rb=4  o1..o4=5..8  .=9  ;=10  <|end|>=11  <|assistant|>=12  w=13 (in no fact)
const FACTS = [0, 1, 3, 5, 9, 1, 4, 6, 9, 2, 3, 7, 9, 2, 4, 8, 9, 11, 12];
const QUESTIONS = [1, 3, 5, 10, 1, 4, 6, 10, 2, 3, 7, 10, 2, 4, 8, 10];
const tokens = [...FACTS, ...QUESTIONS];
const objects = [FACTS.length + 2, FACTS.length + 6, FACTS.length + 10, FACTS.length + 14];
const lossMask = tokens.map((_, i) => (objects.includes(i) ? 1 : 0));

Deno.test("recallOutcomes(): each question sorted by hand: the fact asked, the subject's other fact, the relation's other subject, another word", () => {
  // s1 ra → o1 (asked); s1 rb → o1 (s1's ra fact); s2 ra → o1 (s1's ra fact); s2 rb → w
  const predicted = tokens.slice();
  [5, 5, 5, 13].forEach((p, q) => predicted[objects[q]!] = p);
  assert.deepEqual(recallOutcomes({ tokens, lossMask }, predicted, 11), [
    "the fact asked",
    "the subject's other fact",
    "the relation's other subject",
    "other word",
  ]);
  // an object of another subject and another relation is no read: s1 ra → o4 (s2 rb)
  predicted[objects[0]!] = 8;
  assert.equal(recallOutcomes({ tokens, lossMask }, predicted, 11)[0], "other word");
});

Deno.test("recallOutcomes(): on recall warm-up sequences, the true objects are all the fact asked and a subject's other object is its other fact", () => {
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
  const tok = buildTokenizer([`${words} . ;`]);
  const end = tok.special("<|end|>");
  const sequences = recallTaskSequences(tok, { count: 20, seed: 4 });
  let questions = 0;
  for (const s of sequences) {
    const asked = recallOutcomes(s, s.tokens, end);
    assert.ok(asked.every((o) => o === "the fact asked"));
    questions += asked.length;
    // predict at each question the object of the subject's fact of the other relation
    const close = s.tokens.indexOf(end);
    const predicted = s.tokens.slice();
    s.lossMask.forEach((m, i) => {
      if (m !== 1) return;
      for (let f = 1; f + 2 < close; f += 4) {
        if (s.tokens[f] === s.tokens[i - 2] && s.tokens[f + 1] !== s.tokens[i - 1]) predicted[i] = s.tokens[f + 2]!;
      }
    });
    assert.ok(recallOutcomes(s, predicted, end).every((o) => o === "the subject's other fact"));
  }
  assert.equal(questions, 60);
});

Deno.test("recallOutcomes(): a short prediction or a sequence without its end token is refused", () => {
  assert.throws(() => recallOutcomes({ tokens, lossMask }, [1, 2], 11), /predicted has 2 positions, the sequence 35/);
  assert.throws(() => recallOutcomes({ tokens, lossMask }, tokens, 99), /end token 99 is not in the sequence/);
});

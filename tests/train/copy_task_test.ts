import assert from "node:assert/strict";
import { buildTokenizer, SPECIAL_TOKENS } from "../../lib/text/tokenizer.ts";
import { copyTaskSequences } from "../../lib/train/copy_task.ts";

Deno.test("copyTaskSequences(): ordinary words only, the sequence repeated after noise, loss on the repeat's 2nd word on", () => {
  const tok = buildTokenizer(["alpha beta gamma delta epsilon zeta eta theta"]);
  const seqs = copyTaskSequences(tok, { count: 200, length: [3, 9], maxNoise: 5, seed: 3 });
  assert.deepEqual(copyTaskSequences(tok, { count: 200, length: [3, 9], maxNoise: 5, seed: 3 }), seqs);
  const end = tok.special("<|assistant|>");
  const lengths = new Set<number>();
  const offsets = new Set<number>();
  for (const s of seqs) {
    const sep = s.tokens.indexOf(end);
    const repeat = s.tokens.slice(sep + 1);
    lengths.add(repeat.length);
    assert.ok(repeat.length >= 3 && repeat.length <= 9);
    // the repeat occurs in the prompt, somewhere after <|user|> and before <|end|>
    const prompt = s.tokens.slice(1, sep - 1);
    const at = [...prompt.keys()].filter((i) => repeat.every((t, j) => prompt[i + j] === t));
    assert.ok(at.length >= 1, "the sequence appears in the prompt");
    offsets.add(sep + 1 - (at[0]! + 1));
    assert.ok(prompt.length - repeat.length <= 10, "at most 5 noise words each side");
    assert.ok(s.tokens.slice(1, sep - 1).every((t) => t >= SPECIAL_TOKENS.length));
    assert.deepEqual(s.lossMask, s.tokens.map((_, i) => (i > sep + 1 ? 1 : 0)));
  }
  assert.equal(lengths.size, 7, "every length from 3 to 9 occurs");
  assert.ok(offsets.size > 10, `copy offsets vary (${offsets.size} distinct)`);
  const fixed = copyTaskSequences(tok, { count: 3, length: 4, maxNoise: 0 });
  assert.ok(fixed.every((s) => s.tokens.length === 1 + 4 + 2 + 4));
  assert.throws(() => copyTaskSequences(buildTokenizer([]), { count: 1 }), /no ordinary words/);
  assert.throws(
    () => copyTaskSequences(tok, { count: 1, length: [5, 3] }),
    /length must be integers 2 ≤ min ≤ max, current value is 5,3/,
  );
});

import assert from "node:assert/strict";
import { buildTokenizer, SPECIAL_TOKENS } from "../../lib/text/tokenizer.ts";
import { copyTaskSequences } from "../../lib/train/copy_task.ts";

Deno.test("copyTaskSequences(): ordinary words only, repeated after the separator, loss on the repeat", () => {
  const tok = buildTokenizer(["alpha beta gamma delta epsilon zeta eta theta"]);
  const seqs = copyTaskSequences(tok, { count: 50, length: 6, seed: 3 });
  assert.deepEqual(copyTaskSequences(tok, { count: 50, length: 6, seed: 3 }), seqs);
  for (const s of seqs) {
    assert.equal(s.tokens.length, 1 + 6 + 2 + 6);
    assert.deepEqual(s.tokens.slice(1, 7), s.tokens.slice(9));
    assert.ok(s.tokens.slice(1, 7).every((t) => t >= SPECIAL_TOKENS.length));
    assert.equal(s.lossMask.reduce((a, b) => a + b, 0), 6);
  }
  assert.throws(() => copyTaskSequences(buildTokenizer([]), { count: 1 }), /no ordinary words/);
});

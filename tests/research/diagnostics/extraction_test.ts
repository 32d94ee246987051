import assert from "node:assert/strict";
import { decode } from "../../../lib/text/tokenizer.ts";
import { teacherTestTurns } from "../../_helpers.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { createModel } from "../../../lib/model/params.ts";
import { extractionByPlace, extractionPositions } from "../../../research/diagnostics/extraction.ts";

Deno.test("extractionPositions(): on the teacher's turns, each first turn's every open item (its subject, then its relations and `;`) and nothing of a later turn, with the question shown once or every turn", async () => {
  for (const questionOnce of [true, false]) {
    const { data, sequences, episodes } = await teacherTestTurns(8, 3, 4, { data: { questionOnce } });
    const firsts = sequences.filter((s) => extractionPositions(s, data.tokenizer).length > 0);
    assert.equal(firsts.length, episodes.length, "one first turn per episode");
    firsts.forEach((s, n) => {
      const keys = extractionPositions(s, data.tokenizer);
      const subs = episodes[n]!.task.subQuestions!;
      const subjects = keys.filter(([, k]) => k.endsWith(":subject")).map(([i]) =>
        decode(data.tokenizer, [s.tokens[i]!])
      );
      assert.deepEqual(subjects, subs.map((q) => q.subject));
      // relations: the hops' relation words and a `;` after every item but the last
      const relations = keys.filter(([, k]) => k.endsWith(":relations")).length;
      assert.equal(relations, subs.reduce((a, q) => a + q.hops.length, 0) + subs.length - 1);
    });
  }
});

Deno.test("extractionByPlace(): a random model's hits are counted once per scored token, by place", async () => {
  const { data, sequences } = await teacherTestTurns(8, 3, 2, { data: { questionOnce: true } });
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 2 });
  const rows = await extractionByPlace(model, data.tokenizer, sequences);
  model.dispose();
  assert.deepEqual(rows.map((r) => [r.place, r.subject.total]), [[1, 2], [2, 2], [3, 2]]);
  const scored = sequences.flatMap((s) => extractionPositions(s, data.tokenizer));
  assert.equal(rows.reduce((a, r) => a + r.subject.total + r.relations.total, 0), scored.length);
  assert.ok(rows.every((r) => r.subject.correct <= r.subject.total && r.relations.correct <= r.relations.total));
});

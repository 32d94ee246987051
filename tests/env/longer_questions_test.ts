import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { teacherDemonstrations } from "../../lib/train/demos.ts";
import { thinkPositions } from "../../lib/diagnostics/think_lookups.ts";
import { lengthenQuestion } from "../../lib/env/longer_questions.ts";

Deno.test("lengthenQuestion(): the teacher's turns are the question's own, each context longer by the words added; the think's lookups the same, at the same places of the index", async () => {
  for (const place of [true, "end"] as const) {
    const dir = await Deno.makeTempDir();
    await buildData(dir, 5, {
      trainCount: 4,
      testCount: 4,
      testObjectives: [2, 8],
      markers: false,
      distinctAnswers: true,
      subjectIndex: place,
    });
    const data = await loadData(dir);
    const records = data.test.get(2)!;
    const donors = data.test.get(8)!;
    const turns = async (rs: typeof records) =>
      (await teacherDemonstrations(data, {
        count: rs.length,
        dropProbability: 0,
        seed: 0,
        policies: ["memory"],
        records: rs,
        memory: "state-chain-bare",
      })).sequences;
    const base = await turns(records);
    for (const how of ["objectives", "filler"] as const) {
      const longer = records.map((r, i) => ({
        ...r,
        question: lengthenQuestion(
          r.question,
          r.subQuestions!.map((q) => q.subject),
          donors[i]!.subQuestions!.slice(0, 6),
          how,
        ),
      }));
      const added = longer.map((r, i) => r.question.split(" ").length - records[i]!.question.split(" ").length);
      assert.ok(added.every((n) => n > 20), `${how}: six objectives' words added`);
      const seqs = await turns(longer);
      assert.equal(seqs.length, base.length, `${how}, index ${place}: the same turns`);
      // each context is longer by its question's added words (a word is a token)
      seqs.forEach((s, n) => {
        const b = base[n]!;
        const text = b.tokens.map((id) => data.tokenizer.tokens[id]).join(" ");
        const q = records.findIndex((r) => text.includes(r.question));
        assert.ok(q >= 0);
        assert.equal(s.tokens.length - b.tokens.length, added[q], `${how}, index ${place}, turn ${n}`);
        // what the turn writes is the same
        assert.deepEqual(s.tokens.slice(-60), b.tokens.slice(-60));
        const kinds = (x: typeof s) => thinkPositions(data.tokenizer, x).map(([, k]) => k);
        assert.deepEqual(kinds(s), kinds(b), `${how}, index ${place}, turn ${n}`);
      });
    }
  }
});

Deno.test("lengthenQuestion(): an unknown way refused, naming it", () => {
  assert.throws(
    () => lengthenQuestion("a ?", ["a"], [], "pad" as never),
    /how must be one of objectives, filler, current value is "pad"/,
  );
});

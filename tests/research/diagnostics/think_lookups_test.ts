import assert from "node:assert/strict";
import { buildData, loadData } from "../../../lib/data/build.ts";
import { teacherDemonstrations } from "../../../lib/train/demos.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { createModel } from "../../../lib/model/params.ts";
import { stepAccuracy } from "../../../research/diagnostics/step_diagnostic.ts";
import { THINK_KINDS, thinkPositions, thinkRecords } from "../../../research/diagnostics/think_lookups.ts";
import { lengthenQuestion } from "../../../lib/env/longer_questions.ts";
import { teacherTestTurns } from "../../_helpers.ts";

Deno.test("thinkPositions(): per question of k objectives, k next subjects, one answer, every relation once and two words per later hop; linked: k subjects copied; the index first or last", async () => {
  for (const place of [true, "end"] as const) {
    const dir = await Deno.makeTempDir();
    await buildData(dir, 6, {
      trainCount: 4,
      testCount: 5,
      testObjectives: [3],
      markers: false,
      distinctAnswers: true,
      subjectIndex: place,
    });
    await countsOff(await loadData(dir), String(place));
  }
});

async function countsOff(data: Awaited<ReturnType<typeof loadData>>, place: string): Promise<void> {
  const records = data.test.get(3)!;
  // counted off the questions: a think names a new subject with all its relations; each later hop is `entity relation`
  const subs = records.flatMap((r) => r.subQuestions!);
  const want = {
    "next subject": subs.length,
    relations: subs.reduce((a, q) => a + q.hops.length, 0),
    "next hop": subs.reduce((a, q) => a + 2 * (q.hops.length - 1), 0),
    answer: records.length,
  };
  assert.ok(want["next hop"] > 0, "some objective has two hops");
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 3 });
  try {
    for (const memory of ["state-chain-bare", "state-chain-linked"] as const) {
      const { sequences } = await teacherDemonstrations(data, {
        count: records.length,
        dropProbability: 0,
        seed: 0,
        policies: ["memory"],
        records,
        memory,
      });
      const counts = Object.fromEntries(THINK_KINDS.map((k) => [k, 0])) as Record<string, number>;
      for (const s of sequences) for (const [, kind] of thinkPositions(data.tokenizer, s)) counts[kind]! += 1;
      // linked: the subject just finished is copied before the next one and before `answer`
      const copied = memory === "state-chain-linked" ? subs.length : 0;
      assert.deepEqual(counts, { ...want, "subject copied": copied }, `${memory}, index ${place}`);
      // every think word once: as many as the step table's think, and as many right
      const scored = await thinkRecords(model, data.tokenizer, sequences);
      const cell = (await stepAccuracy(model, data.tokenizer, sequences, { chain: true })).find((c) =>
        c.step === "think"
      )!;
      assert.deepEqual([scored.filter((r) => r.right).length, scored.length], [cell.correct, cell.total], memory);
      assert.ok(scored.every((r) => r.subjects === 3));
      // a lookup of the next subject or of `answer` is sorted, and "right" only where it is right
      for (const r of scored) {
        const looksUp = r.kind === "next subject" || r.kind === "answer";
        assert.equal(r.outcome !== undefined, looksUp);
        if (looksUp) assert.equal(r.outcome === "right", r.right);
      }
      // per question, the subjects looked up at places 1, 2, 3 of the index, `answer` one past them
      const slots = scored.filter((r) => r.slot !== undefined).map((r) => r.slot);
      assert.deepEqual(slots, records.flatMap(() => [1, 2, 3, 4]), `${memory}, index ${place}`);
    }
  } finally {
    model.dispose();
  }
}

Deno.test("thinkPositions(): a question without a subject index has no think lookups to sort", async () => {
  const { data, sequences } = await teacherTestTurns(6, 2, 2, {
    data: { distinctAnswers: true },
    memory: "state-chain-bare",
  });
  assert.ok(sequences.length > 0);
  assert.deepEqual(sequences.flatMap((s) => thinkPositions(data.tokenizer, s)), []);
});

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

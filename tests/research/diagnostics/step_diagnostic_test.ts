import assert from "node:assert/strict";
import { buildData, loadData, type LoadedData } from "../../../lib/data/build.ts";
import type { LmSequence } from "../../../lib/train/collate.ts";
import { corpusNames } from "../../../lib/env/world.ts";
import { buildTokenizer, encode } from "../../../lib/text/tokenizer.ts";
import { teacherDemonstrations } from "../../../lib/train/demos.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { createModel } from "../../../lib/model/params.ts";
import { STEP_KINDS, stepAccuracy, stepPositions } from "../../../research/diagnostics/step_diagnostic.ts";
import { copyAccuracy } from "../../../research/diagnostics/copy_diagnostic.ts";
import { MEMORY_FORMATS, type MemoryFormat } from "../../../lib/env/teacher.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 8, {
  trainCount: 4,
  testCount: 5,
  testObjectives: [3],
  sizes: { distractors: 0 },
});
const data = await loadData(dir);
/** The teacher's memory-context turns (no drops) on the test set of `objectives` of `d`. */
const teacherTurns = (d: LoadedData, objectives: number, memory?: MemoryFormat) =>
  teacherDemonstrations(d, {
    count: d.test.get(objectives)!.length,
    dropProbability: 0,
    seed: 0,
    policies: ["memory"],
    maxTurnTokens: 64,
    records: d.test.get(objectives)!,
    ...(memory ? { memory } : {}),
  });
const demos = (memory: MemoryFormat) => teacherTurns(data, 3, memory);

/** Labelled positions per step over the sequences. */
function stepCounts(tokenizer: LoadedData["tokenizer"], sequences: readonly LmSequence[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of sequences) {
    for (const [, step] of stepPositions(tokenizer, s)) counts.set(step, (counts.get(step) ?? 0) + 1);
  }
  return counts;
}
const { sequences, episodes } = await demos("state-relations");

for (const memory of MEMORY_FORMATS) {
  Deno.test(`stepPositions(): each step of the ${memory} memory's operation, counted on teacher episodes of 3 objectives`, async () => {
    const { sequences, episodes } = await demos(memory);
    const counts = stepCounts(data.tokenizer, sequences);
    const subs = episodes.map((e) => e.task.subQuestions!);
    const hops = subs.map((qs) => qs.reduce((n, q) => n + q.hops.length, 0));
    const twoHop = subs.map((qs) => qs.filter((q) => q.hops.length === 2).length);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // first turn: the 3 subjects from the question (with their relations); each answer appended once; the rewritten
    // head: entity + relation
    assert.equal(counts.get("open from question"), sum(hops) + 5 * 3);
    assert.equal(counts.get("answer appended"), 5 * 3);
    assert.equal(counts.get("open next hop"), 2 * sum(twoHop));
    // think and search: two words per search turn; the final answer: 3 answers and 2 separators
    assert.equal(counts.get("think"), 2 * sum(hops) + 5);
    assert.equal(counts.get("search"), 2 * sum(hops));
    assert.equal(counts.get("final answer"), 5 * 5);
    // one "|" a turn; with relations a ";" between open items and between answers: o_t - 1 and a_t - 1 at a turn
    // with o_t open and a_t found
    const memories = episodes.flatMap((e) => e.turns.map((t) => t.text.match(/<mem> (.*?) <\/mem>/)![1]!));
    const semicolons = memories.reduce((n, m) => n + m.split(" ").filter((w) => w === ";").length, 0);
    assert.equal(counts.get("separators"), sum(hops) + 5 + semicolons);
    if (memory === "state-relations-bare") assert.equal(semicolons, 0);
    else {
      // o_t + a_t = 3 at every turn (an objective is open or found)
      const expected = memories.reduce((n, m) => {
        const [open, found] = m.split("|").map((p) => p.trim() === "" ? 0 : p.split(";").length);
        assert.equal(open! + found!, 3);
        return n + Math.max(0, open! - 1) + Math.max(0, found! - 1);
      }, 0);
      assert.equal(semicolons, expected);
      assert.ok(semicolons > 0);
    }
    // answers carried: every turn carries each answer of the memory before it
    const answersIn = (text: string) =>
      text.match(/<mem> (.*?) <\/mem>/)![1]!.split("|")[1]!.trim().split(" ").filter((w) => w !== "" && w !== ";");
    const carried = episodes.reduce(
      (n, e) => n + e.turns.slice(1).reduce((m, _, t) => m + answersIn(e.turns[t]!.text).length, 0),
      0,
    );
    assert.equal(counts.get("answers carried"), carried);
    assert.ok(counts.get("open carried")! > 0);
    assert.ok([...counts.keys()].every((k) => (STEP_KINDS as readonly string[]).includes(k)));
  });
}

Deno.test("stepPositions(): the head rewritten after a first hop, then popped and its answer appended, with and without ;", () => {
  const tok = buildTokenizer(["a b c x y born founder | ;"]);
  const labels = (context: string, turn: string) => {
    const ids = encode(tok, `${context} ${turn}`).ids;
    const n = encode(tok, context).ids.length;
    return stepPositions(tok, { tokens: ids, lossMask: ids.map((_, i) => (i >= n ? 1 : 0)) }).map(([, s]) => s);
  };
  // a first hop read: the first item (the head) becomes the entity found and the relation left, the rest copied
  assert.deepEqual(labels("<mem> b founder born ; a born | x </mem> <mem>", "y born ; a born | x </mem>"), [
    "open next hop",
    "open next hop",
    "separators",
    "open carried",
    "open carried",
    "separators",
    "answers carried",
  ]);
  // a pop: the rest of the open list copied, the answers carried, the head's answer appended last
  assert.deepEqual(labels("<mem> a born ; y born | x </mem> <mem>", "y born | x ; c </mem>"), [
    "open carried",
    "open carried",
    "separators",
    "answers carried",
    "separators",
    "answer appended",
  ]);
  // bare: the same steps, with no ";" to label
  assert.deepEqual(labels("<mem> a born y born | x </mem> <mem>", "y born | x c </mem>"), [
    "open carried",
    "open carried",
    "separators",
    "answers carried",
    "answer appended",
  ]);
  // the first turn: every open item from the question, then the think
  assert.deepEqual(labels("<mem>", "a born ; b founder born | </mem> <think> a born </think>"), [
    "open from question",
    "open from question",
    "separators",
    "open from question",
    "open from question",
    "open from question",
    "separators",
    "think",
    "think",
  ]);
});

Deno.test("stepAccuracy(): scores each labelled token once; the memory's steps add up to copyAccuracy's mem tokens", async () => {
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 2 });
  const steps = await stepAccuracy(model, data.tokenizer, sequences);
  const labelled = sequences.reduce((n, s) => n + stepPositions(data.tokenizer, s).length, 0);
  assert.equal(steps.reduce((n, c) => n + c.total, 0), labelled);
  assert.ok(steps.every((c) => c.correct >= 0 && c.correct <= c.total));
  const mem = (await copyAccuracy(model, data.tokenizer, new Set(corpusNames(data.corpus)), sequences))
    .filter((c) => c.tag === "mem").reduce((n, c) => n + c.total, 0);
  const memSteps = steps.filter((c) => !["think", "search", "final answer"].includes(c.step))
    .reduce((n, c) => n + c.total, 0);
  const turns = sequences.reduce(
    (n, s) => n + s.lossMask.filter((m, i) => m === 1 && s.lossMask[i - 1] !== 1).length,
    0,
  );
  assert.equal(turns, episodes.reduce((n, e) => n + e.turns.length, 0));
  assert.equal(memSteps, mem - 2 * turns); // copyAccuracy also scores each turn's </mem> and <think> as mem tokens
  model.dispose();
});

Deno.test("stepPositions(): with two cities a person, the answer appended from a document that holds both is the memory decision", async () => {
  const twoCities = await Deno.makeTempDir();
  await buildData(twoCities, 8, {
    trainCount: 4,
    testCount: 8,
    testObjectives: [2],
    sizes: { distractors: 0, lives: 1 },
  });
  const d = await loadData(twoCities);
  const { sequences, episodes } = await teacherTurns(d, 2);
  assert.equal(episodes.length, 8);
  const counts = stepCounts(d.tokenizer, sequences);
  // one decision per objective whose last hop has a decoy; every other objective's answer is a read
  const decisions = episodes.reduce(
    (n, e) => n + e.task.subQuestions!.filter((q) => q.hops.at(-1)!.decoy !== undefined).length,
    0,
  );
  assert.ok(decisions > 0 && decisions < 8 * 2, `${decisions} decisions`);
  assert.equal(counts.get("memory decision"), decisions);
  assert.equal((counts.get("answer appended") ?? 0) + decisions, 8 * 2);
});

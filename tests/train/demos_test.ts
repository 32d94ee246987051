import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { tasksFromRecords, teacherDemonstrations, turnSequences } from "../../lib/train/demos.ts";
import { decode } from "../../lib/text/tokenizer.ts";
import { createModel } from "../../lib/model/params.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { scoreContinuations } from "../../lib/model/score.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import type { Episode } from "../../lib/env/rollout.ts";
import type { LmSequence } from "../../lib/train/collate.ts";

Deno.test("teacherDemonstrations(): loss only on the teacher's tokens, both context policies, full-history turns packed", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 14, { trainCount: 10, testCount: 1 });
  const data = await loadData(dir);
  const { sequences, episodes } = await teacherDemonstrations(data, { count: 10, dropProbability: 0, seed: 2 });
  assert.equal(episodes.length, 10);
  assert.ok(episodes.every((e) => e.reward === 1));
  // full-history episodes pack into one sequence; memory episodes into T − 1 (turn 2 extends turn 1)
  const turns = (es: typeof episodes) => es.reduce((a, e) => a + e.turns.length, 0);
  assert.equal(sequences.length, 5 + turns(episodes.slice(0, 5)) - 5);
  const lossTokens = sequences.reduce((a, s) => a + s.lossMask.filter((m) => m === 1).length, 0);
  assert.equal(lossTokens, episodes.reduce((a, e) => a + e.turns.reduce((b, t) => b + t.sampled.length, 0), 0));
  for (const s of sequences) {
    const first = s.lossMask.indexOf(1);
    assert.ok(first > 0 && s.lossMask.at(-1) === 1, "context first, a turn's tokens last");
    assert.ok(
      decode(data.tokenizer, s.tokens.slice(0, first)).endsWith("<|assistant|> <mem>"),
      "forced prefix is context",
    );
  }
  const full = episodes.slice(5).flatMap((e) => e.turns.at(-1)!.context);
  const mem = episodes.slice(0, 5).flatMap((e) => e.turns.at(-1)!.context);
  assert.ok(full.length > mem.length, "the second half runs under the full-history policy");
  assert.deepEqual(turnSequences([]), []);
  assert.equal(tasksFromRecords(data.train, 100)[3]!.groupId, 103);
});

Deno.test("teacherDemonstrations() draws equal shares from the main and auxiliary worlds, each searched in its own corpus", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 15, { trainCount: 8, testCount: 1, testObjectives: [1], auxWorlds: 1 });
  const data = await loadData(dir);
  const { episodes } = await teacherDemonstrations(data, { count: 8, dropProbability: 0, seed: 3 });
  assert.equal(episodes.length, 8);
  // the teacher reads the right world's documents: every episode is answered correctly
  assert.ok(episodes.every((e) => e.reward === 1), "teacher scores 1 in both worlds");
  const questions = episodes.map((e) => e.task.question);
  const main = new Set(data.train.map((r) => r.question));
  const aux = new Set(data.aux[0]!.train.map((r) => r.question));
  assert.equal(questions.filter((q) => main.has(q) && !aux.has(q)).length, 4);
  assert.equal(questions.filter((q) => aux.has(q) && !main.has(q)).length, 4);
});

Deno.test("turnSequences(): a packed full-history episode gives every teacher token the log-prob it has in its own turn", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 16, { trainCount: 4, testCount: 1, testObjectives: [1], trainObjectives: 2 });
  const data = await loadData(dir);
  const { episodes } = await teacherDemonstrations(data, { count: 2, dropProbability: 0, seed: 1, policies: ["full"] });
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 3 });
  for (const e of episodes) {
    const [packed, ...rest] = turnSequences([e]);
    assert.equal(rest.length, 0, "one sequence per full-history episode");
    const perTurn =
      (await scoreContinuations(model, e.turns.map((t) => ({ context: t.context, continuation: t.sampled })), {
        padId: data.tokenizer.padId,
      })).flat();
    const whole = (await scoreContinuations(
      model,
      [{ context: packed!.tokens.slice(0, 1), continuation: packed!.tokens.slice(1) }],
      {
        padId: data.tokenizer.padId,
      },
    ))[0]!.filter((_, i) => packed!.lossMask[i + 1] === 1);
    assert.ok(perTurn.length >= 6, `a 2-objective episode has several turns' tokens (${perTurn.length})`);
    assertAllClose(whole, perTurn, { rtol: 1e-4, atol: 1e-5 });
    const last = e.turns.at(-1)!;
    assert.equal(
      packed!.tokens.length,
      last.context.length + last.sampled.length,
      "the last turn's sequence holds all",
    );
  }
  model.dispose();
});

/** 12 chain-memory demonstrations, every memory episode drilled (1-3 carried; `index`: a continued task). */
/** A world whose training questions ask 2 objectives with distinct answers and a subject index. */
/** Teacher tokens of the episodes, and those the sequences learn. */
function tokenCounts(episodes: readonly Episode[], sequences: readonly LmSequence[]): [number, number] {
  const sampled = episodes.reduce((a, e) => a + e.turns.reduce((b, t) => b + t.sampled.length, 0), 0);
  return [sampled, sequences.reduce((a, x) => a + x.lossMask.filter((m) => m === 1).length, 0)];
}

Deno.test("teacherDemonstrations() with join (data.questionOnce): memory episodes of joined tasks reach more objectives than any question, no learned context holds a question after the first turn, a joined episode's first turn is not learned; full-history episodes are the questions' own", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 23, {
    trainCount: 16,
    testCount: 1,
    testObjectives: [1],
    trainObjectives: 2,
    distinctAnswers: true,
    questionOnce: true,
  });
  const data = await loadData(dir);
  assert.equal(data.questionOnce, true);
  const options = { count: 16, dropProbability: 0, seed: 4, memory: "state-relations" as const };
  const { sequences, episodes, policies } = await teacherDemonstrations(data, {
    ...options,
    join: { share: 1, max: 5 },
  });
  const words = (ids: readonly number[]) => decode(data.tokenizer, ids).split(" ");
  const sizes = new Set<number>();
  let firstTurns = 0;
  episodes.forEach((e, n) => {
    const subs = e.task.subQuestions!;
    assert.equal(e.reward, 1, "the teacher answers every objective");
    if (policies[n] === "full") {
      assert.equal(subs.length, 2, "full history: the question's own objectives");
      // the full history keeps the question at every turn (questionOnce is the memory context's alone)
      assert.ok(e.turns.every((t) => decode(data.tokenizer, t.context).includes(e.task.question)));
      return;
    }
    sizes.add(subs.length);
    // the first memory lists every objective; later contexts start with the system message and the last turn
    const first = words(e.turns[0]!.sampled);
    assert.equal(first.slice(0, first.indexOf("|")).filter((w) => w === ";").length, subs.length - 1);
    for (const t of e.turns.slice(1)) {
      const c = words(t.context);
      assert.equal(c.filter((w) => w === "<|user|>").length, 1, "only the tool's message");
      assert.equal(
        c.indexOf("<|assistant|>"),
        c.indexOf("<|end|>") + 1,
        "the last turn right after the system message",
      );
    }
    firstTurns += e.turns[0]!.sampled.length;
  });
  assert.ok([...sizes].some((k) => k > 4) && [...sizes].every((k) => k >= 3 && k <= 7), `joined sizes ${[...sizes]}`);
  // no learned sequence holds a question's text; only the joined episodes' first turns go unlearned
  const texts = episodes.map((e) => e.task.question);
  for (const s of sequences) {
    const text = decode(data.tokenizer, s.tokens);
    assert.ok(texts.every((q, n) => policies[n] === "full" || !text.includes(q)));
  }
  const [sampled, learned] = tokenCounts(episodes, sequences);
  assert.equal(learned, sampled - firstTurns);
  // without data.questionOnce a join is refused
  const plainDir = await Deno.makeTempDir();
  await buildData(plainDir, 23, { trainCount: 4, testCount: 1, testObjectives: [1] });
  await assert.rejects(
    teacherDemonstrations(await loadData(plainDir), { ...options, count: 4, join: { share: 1, max: 2 } }),
    /join needs data whose memory context shows the question once \(data\.questionOnce\)/,
  );
});

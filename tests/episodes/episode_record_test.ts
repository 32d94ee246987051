import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { type Episode, runEpisodes } from "../../lib/env/rollout.ts";
import { decode } from "../../lib/text/tokenizer.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import {
  EPISODE_RECORD_VERSION,
  episodeRecord,
  isEpisodeRecord,
  turnContext,
} from "../../lib/episodes/episode_record.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 2, { trainCount: 2, testCount: 2, testObjectives: [1, 4] });
const data = await loadData(dir);
const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
const tasks = tasksFromRecords(data.test.get(4)!);
const identity = { stage: "eval", index: 0, agent: "Teacher", contextPolicy: "memory" as const };
const run = (contextPolicy: "full" | "memory", options: { maxPositions?: number; questionOnce?: boolean } = {}) =>
  runEpisodes(teacher, tasks, { ...data, questionOnce: options.questionOnce ?? false }, {
    contextPolicy,
    maxTurns: 24,
    maxPositions: options.maxPositions ?? 2048,
  });
const contextsAgree = (e: Episode) => {
  const r = episodeRecord(e, data.tokenizer, identity);
  e.turns.forEach((t, k) => assert.equal(turnContext(r, k), decode(data.tokenizer, t.context), `turn ${k + 1}`));
  return r;
};

Deno.test("episodeRecord(): every context kept by reference and rebuilt word for word, memory and full history", async () => {
  for (const e of [...await run("memory"), ...await run("full")]) {
    const r = contextsAgree(e);
    assert.ok(r.turns.every((t) => t.context === undefined && t.head === "question"));
    assert.deepEqual(r.turns.map((t) => t.contextTokens), e.turns.map((t) => t.context.length));
  }
  const [full] = await run("full");
  assert.deepEqual(episodeRecord(full!, data.tokenizer, identity).turns.map((t) => t.from), full!.turns.map(() => 0));
});

Deno.test("episodeRecord(): the oldest turns dropped to fit, and the question shown once, are kept by reference too", async () => {
  // 4 objectives under the whole history in 400 positions: the oldest turns leave the context
  const [cut] = await run("full", { maxPositions: 400 });
  const r = contextsAgree(cut!);
  assert.ok(r.turns.some((t) => t.from > 0), `from: ${r.turns.map((t) => t.from)}`);
  const [once] = await run("memory", { questionOnce: true });
  const o = contextsAgree(once!);
  assert.deepEqual(o.turns.map((t) => t.head), o.turns.map((_, k) => (k === 0 ? "question" : "system")));
});

Deno.test("episodeRecord(): a context the template does not make is kept as its text", async () => {
  const [e] = await run("memory");
  const odd = { ...e!, turns: e!.turns.map((t, k) => (k === 1 ? { ...t, context: [...t.context.slice(0, 5)] } : t)) };
  const r = episodeRecord(odd, data.tokenizer, identity);
  assert.equal(r.turns[1]!.context, decode(data.tokenizer, e!.turns[1]!.context.slice(0, 5)));
  assert.equal(turnContext(r, 1), r.turns[1]!.context);
  assert.equal(r.turns[0]!.context, undefined);
});

Deno.test("episodeRecord(): outcome, words, tool answers and the RL numbers, rounded to 6 digits", async () => {
  const [e] = await run("memory");
  const n = e!.turns.length;
  const r = episodeRecord(e!, data.tokenizer, { ...identity, stage: "mempo", step: 4, index: 3, agent: "MemPO" }, {
    outcomeAdvantage: 1 / 3,
    advantages: e!.turns.map((t, k) => (k === 0 ? undefined : t.sampled.map(() => 2 / 3))),
    memAdvantage: e!.turns.map((_, k) => (k === 0 ? null : 0.123456789)),
    memReward: e!.turns.map(() => -0.5),
    pMem: e!.turns.map(() => 0.25),
    pFull: e!.turns.map(() => 0.75),
  });
  assert.equal(r.v, EPISODE_RECORD_VERSION);
  assert.deepEqual([r.stage, r.step, r.index, r.group, r.agent, r.objectives], ["mempo", 4, 3, 0, "MemPO", 4]);
  assert.deepEqual(r.gold, tasks[0]!.targets);
  assert.deepEqual([r.answer, r.reward, r.em], [e!.answer, 1, [1, 1, 1, 1]]);
  assert.equal(r.outcomeAdvantage, 0.333333);
  assert.equal(r.turns[0]!.advantages, undefined);
  assert.deepEqual(r.turns[1]!.advantages, e!.turns[1]!.sampled.map(() => 0.666667));
  assert.deepEqual(r.turns.map((t) => t.memAdvantage), [null, ...new Array(n - 1).fill(0.123457)]);
  assert.deepEqual([r.turns[1]!.memReward, r.turns[1]!.pMem, r.turns[1]!.pFull], [-0.5, 0.25, 0.75]);
  // the words are the turn's text after the forced <mem>; the tool answer is there after a search, not after the answer
  e!.turns.forEach((t, k) => assert.equal(`<mem> ${r.turns[k]!.tokens.join(" ")}`, t.text));
  assert.match(r.turns[0]!.tool!, /^<\|user\|> <information> .* <\/information> <\|end\|>$/);
  assert.equal(r.turns.at(-1)!.tool, undefined);
  assert.deepEqual(r.turns[0]!.memSpan, e!.turns[0]!.memSpan);
  assert.ok(isEpisodeRecord(JSON.parse(JSON.stringify(r))), "a record survives JSON");
});

Deno.test("isEpisodeRecord(): another version, or no stage or turns, is not one", () => {
  assert.equal(isEpisodeRecord({ v: 1, stage: "eval", turns: [] }), true);
  for (const x of [{ v: 2, stage: "eval", turns: [] }, { v: 1, turns: [] }, { v: 1, stage: "eval" }, { stage: "x" }]) {
    assert.equal(isEpisodeRecord(x), false, JSON.stringify(x));
  }
});

Deno.test("turnContext(): a turn that is not there is a RangeError naming it", () => {
  assert.throws(() => turnContext({ header: "", turns: [] }, 0), /no turn 0 \(0 turns\)/);
});

import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher, droppedObjectives, MEMORY_FORMATS, parseStateMemory } from "../../lib/env/teacher.ts";
import {
  type AgentPolicy,
  type Episode,
  type EpisodeTask,
  runEpisodes,
  scriptedTurn,
  type TurnRequest,
} from "../../lib/env/rollout.ts";
import { decode, encode } from "../../lib/text/tokenizer.ts";
import { buildSearchIndex } from "../../lib/env/search.ts";
import { createRng } from "../../lib/random.ts";
import type { QaRecord } from "../../lib/data/dataset.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 21, { trainCount: 60, testCount: 8 });
const data = await loadData(dir);
const tasks = (rs: QaRecord[]): EpisodeTask[] =>
  rs.map((r, i) => ({ question: r.question, targets: r.targets, groupId: i, subQuestions: r.subQuestions }));

Deno.test("the oracle teacher scores 1.0 on every test set under both context policies", async () => {
  const oracle = createTeacher(data.tokenizer, { dropProbability: 0 });
  for (const [k, rs] of data.test) {
    for (const contextPolicy of ["full", "memory"] as const) {
      const eps = await runEpisodes(oracle, tasks(rs), data, { contextPolicy, maxTurns: 64 });
      assert.ok(
        eps.every((e) => e.reward === 1 && e.formatValid),
        `${k} objectives, ${contextPolicy}: ${eps.find((e) => e.reward !== 1)?.error}`,
      );
      assert.ok(
        eps.every((e) => e.turns.every((t) => !encode(data.tokenizer, t.text).ids.includes(data.tokenizer.unkId))),
      );
    }
  }
});

Deno.test("the imperfect teacher under the memory policy loses exactly the objectives it dropped", async () => {
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0.3, seed: 4 });
  const rs = [...data.test.get(4)!, ...data.train];
  const eps = await runEpisodes(teacher, tasks(rs), data, { contextPolicy: "memory", maxTurns: 64 });
  let lost = 0;
  for (const e of eps) {
    const dropped = droppedObjectives(e.task.question, e.score.em.length, { dropProbability: 0.3, seed: 4 });
    const last = e.score.em.length - 1; // the last objective is read in the previous turn: never "earlier"
    e.score.em.forEach((em, i) => {
      const expected = dropped.has(i) && i !== last ? 0 : 1;
      assert.equal(em, expected, `episode ${e.id} objective ${i}: ${e.answer}`);
      lost += 1 - em;
    });
  }
  assert.ok(lost > 10, `only ${lost} objectives lost`);
});

Deno.test("garbage output ends the episode with reward 0 and no exception", async () => {
  const tok = data.tokenizer;
  const ids = (t: string) => encode(tok, t).ids;
  const rng = createRng(3);
  const outputs: Record<string, number[]> = {
    unclosed: ids("none </mem> <think> x </think> <search> zorbex born"),
    nested: ids("none </mem> <think> <search> x </search> </think> <search> y </search>"),
    long: Array.from({ length: 10_000 }, () => 20),
    empty: [],
    noise: Array.from({ length: 40 }, () => rng.int(tok.size)),
    outOfVocab: [99999, 5],
    toolTag: ids("none </mem> <think> x </think> <information> y </information> <search> z </search>"),
  };
  const names = Object.keys(outputs);
  const policy: AgentPolicy = {
    nextTurns: (reqs: readonly TurnRequest[]) =>
      Promise.resolve(reqs.map((r) => {
        const o = outputs[names[r.episode.id]!]!;
        return { tokens: o, logProbs: o.map(() => -1) };
      })),
  };
  const eps = await runEpisodes(policy, tasks(data.train.slice(0, names.length)), data, { contextPolicy: "full" });
  for (const e of eps) {
    assert.equal(e.reward, 0, names[e.id]);
    assert.equal(e.done, true);
    assert.equal(e.turns.length, 1);
    assert.match(e.error!, /^turn 1: /, names[e.id]);
  }
  assert.equal(eps[names.indexOf("long")]!.turns[0]!.sampled.length, 96, "a 10k-token turn is cut at maxTurnTokens");
});

Deno.test("a task with its own search index searches it; the others search the env's", async () => {
  const tok = data.tokenizer;
  const r = data.train[0]!;
  const entity = r.subQuestions![0]!.hops[0]!.entity;
  const own = buildSearchIndex([{ id: entity, text: `${entity} capital ${entity} .` }]);
  const script = encode(tok, `none </mem> <think> answer </think> <search> ${entity} </search>`).ids;
  const policy: AgentPolicy = {
    nextTurns: (reqs: readonly TurnRequest[]) =>
      Promise.resolve(reqs.map(() => ({ tokens: script, logProbs: script.map(() => 0) }))),
  };
  const [mine, env] = await runEpisodes(policy, [{ ...tasks([r])[0]!, search: own }, tasks([r])[0]!], data, {
    contextPolicy: "memory",
    maxTurns: 2,
  });
  const toolText = (e: typeof mine) => decode(tok, e!.turns[0]!.tool);
  assert.match(toolText(mine), new RegExp(`${entity} capital ${entity}`));
  // the env's index holds the main world's document of the entity, not the made-up one
  assert.match(toolText(env), new RegExp(`${entity} \\w+ \\w+ \\.`));
  assert.doesNotMatch(toolText(env), new RegExp(`${entity} capital ${entity}`));
});

Deno.test("token accounting: total = Σ (context + generated), peak = max, on a hand-built episode", async () => {
  const tok = data.tokenizer;
  const r = data.train[0]!;
  const script = [
    `none </mem> <think> answer </think> <search> ${r.subQuestions![0]!.hops[0]!.entity} </search>`,
    `none </mem> <think> answer </think> <answer> unknown ; none </answer>`,
  ].map((t) => encode(tok, t).ids);
  const seen: number[][] = [];
  const policy: AgentPolicy = {
    nextTurns: (reqs: readonly TurnRequest[]) =>
      Promise.resolve(reqs.map((q) => {
        seen.push([...q.context]);
        const o = script[q.episode.turns.length]!;
        return { tokens: o, logProbs: o.map(() => 0) };
      })),
  };
  for (const contextPolicy of ["full", "memory"] as const) {
    seen.length = 0;
    const [e] = await runEpisodes(policy, tasks([r]), data, { contextPolicy });
    assert.equal(e!.totalTokens, seen[0]!.length + script[0]!.length + seen[1]!.length + script[1]!.length);
    assert.equal(e!.peakContext, Math.max(seen[0]!.length + script[0]!.length, seen[1]!.length + script[1]!.length));
    // turn 2 sees the header, turn 1 (prefix + sampled + end) and its tool result, then a new 2-token prefix
    assert.equal(seen[1]!.length, seen[0]!.length + script[0]!.length + 1 + e!.turns[0]!.tool.length + 2);
    assert.equal(e!.turns[1]!.memSpan![1], 2, "memory span: content + </mem>");
    assert.equal(e!.formatValid, true);
  }
});

Deno.test("runEpisodes() validates its options and enforces maxTurns", async () => {
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
  await assert.rejects(
    runEpisodes(teacher, [], data, { contextPolicy: "none" as "full" }),
    /contextPolicy must be "full" or "memory"/,
  );
  await assert.rejects(
    runEpisodes(teacher, [], data, { contextPolicy: "full", maxTurns: 0 }),
    /maxTurns must be a positive integer/,
  );
  const rs = data.test.get(8)!.slice(0, 2);
  const eps = await runEpisodes(teacher, tasks(rs), data, { contextPolicy: "memory", maxTurns: 3 });
  for (const e of eps) assert.match(e.error!, /reached maxTurns 3 without an answer/);
});

Deno.test("both teacher memories score 1.0 at 1 to 8 objectives on questions separated by ; alone, under both context policies", async () => {
  const plain = await Deno.makeTempDir();
  await buildData(plain, 22, { trainCount: 10, testCount: 6, testObjectives: [1, 2, 4, 6, 8] });
  const d = await loadData(plain);
  for (const memory of MEMORY_FORMATS) {
    const oracle = createTeacher(d.tokenizer, { dropProbability: 0, memory });
    for (const [k, rs] of d.test) {
      assert.ok(rs.every((r) => !/\bq\d\b/.test(r.question) && r.question.split(" ; ").length === k), rs[0]!.question);
      for (const contextPolicy of ["full", "memory"] as const) {
        const eps = await runEpisodes(oracle, tasks(rs), d, { contextPolicy, maxTurns: 64 });
        assert.ok(eps.every((e) => e.reward === 1 && e.formatValid), `${memory}, ${k} objectives, ${contextPolicy}`);
        if (contextPolicy === "memory" && k > 1) {
          const mem = (e: Episode) => e.turns[0]!.text.split("</mem>")[0]!;
          const bare = memory === "state-relations-bare";
          assert.ok(
            eps.every((e) => mem(e).includes(" ; ") !== bare),
            bare ? "no ; in the memory" : "items separated by ;",
          );
        }
      }
    }
  }
});

Deno.test("the bare state memory (no `;`), with the question shown once: the teacher scores 1.0 at 1 to 8 objectives, and every memory reads back as the one with `;`", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 24, {
    trainCount: 10,
    testCount: 6,
    testObjectives: [1, 2, 4, 6, 8],
    distinctAnswers: true,
    questionOnce: true,
  });
  const d = await loadData(dir);
  const run = (memory: "state-relations" | "state-relations-bare", rs: Parameters<typeof tasks>[0]) =>
    runEpisodes(createTeacher(d.tokenizer, { dropProbability: 0, memory }), tasks(rs), d, {
      contextPolicy: "memory",
      maxTurns: 64,
    });
  const mem = (text: string) => text.split("</mem>")[0]!.replace("<mem>", "");
  for (const [k, rs] of d.test) {
    const [bare, plain] = [await run("state-relations-bare", rs), await run("state-relations", rs)];
    assert.ok(bare.every((e) => e.reward === 1 && e.formatValid), `${k} objectives`);
    bare.forEach((e, i) => {
      assert.equal(e.turns.length, plain[i]!.turns.length);
      e.turns.forEach((t, j) => {
        assert.ok(!mem(t.text).includes(";"), t.text);
        assert.deepEqual(parseStateMemory(mem(t.text)), parseStateMemory(mem(plain[i]!.turns[j]!.text)));
      });
    });
  }
});

Deno.test("scriptedTurn(): the turns before learnFrom are the teacher's, the rest (and every turn without learnFrom) the policy's", () => {
  assert.deepEqual([0, 1, 2, 3].map((k) => scriptedTurn({ learnFrom: 2 }, k)), [true, true, false, false]);
  assert.deepEqual([0, 1].map((k) => scriptedTurn({ learnFrom: 0 }, k)), [false, false]);
  assert.deepEqual([0, 1].map((k) => scriptedTurn({}, k)), [false, false]);
});

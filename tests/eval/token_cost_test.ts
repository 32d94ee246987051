import assert from "node:assert/strict";
import type { EvalRow } from "../../lib/eval/evaluate.ts";
import { tokenCost, tokenCostMarkdown } from "../../lib/eval/token_cost.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

const row = (
  agent: string,
  contextPolicy: "full" | "memory",
  objectives: number,
  questionTurns: number[],
  questionTokens: number[],
  questionValid: boolean[],
  peak = 100,
): EvalRow => ({
  agent,
  contextPolicy,
  objectives,
  em: 0,
  f1: 0,
  formatValid: questionValid.filter(Boolean).length / questionValid.length,
  reward: 0,
  totalTokens: questionTokens.reduce((a, b) => a + b, 0) / questionTokens.length,
  peakContext: peak,
  questionTurns,
  questionTokens,
  questionValid,
  episodes: questionTurns.length,
});

Deno.test("tokenCost(): turns, turns of the valid episodes and tokens per turn, by hand", () => {
  const [c] = tokenCost([row("SFT", "full", 8, [5, 3, 4, 12], [900, 300, 500, 2300], [true, false, false, true])]);
  // turns (5 + 3 + 4 + 12) / 4 = 6; valid (5 + 12) / 2 = 8.5; tokens 4000 / 24 turns
  assert.equal(c!.turns, 6);
  assert.equal(c!.validTurns, 8.5);
  assertAllClose(c!.tokensPerTurn!, 4000 / 24, { rtol: 1e-12, atol: 0 });
  assert.deepEqual([c!.episodes, c!.totalTokens, c!.peakContext, c!.validShare], [4, 1000, 100, 0.5]);
});

Deno.test("tokenCost() agrees with a slow per-question loop on random rows", () => {
  let s = 7;
  const rand = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let trial = 0; trial < 20; trial++) {
    const n = 1 + Math.floor(rand() * 10);
    const turns = Array.from({ length: n }, () => 1 + Math.floor(rand() * 16));
    const tokens = turns.map((t) => t * (50 + Math.floor(rand() * 200)));
    const valid = turns.map(() => rand() < 0.5);
    const [c] = tokenCost([row("A", "memory", 4, turns, tokens, valid)]);
    let sumTurns = 0, sumTokens = 0, sumValid = 0, nValid = 0;
    for (let q = 0; q < n; q++) {
      sumTurns += turns[q]!;
      sumTokens += tokens[q]!;
      if (valid[q]) (sumValid += turns[q]!, nValid++);
    }
    assertAllClose(c!.turns, sumTurns / n, { rtol: 1e-12, atol: 0 });
    assertAllClose(c!.tokensPerTurn!, sumTokens / sumTurns, { rtol: 1e-12, atol: 0 });
    if (nValid === 0) assert.equal(c!.validTurns, null);
    else assertAllClose(c!.validTurns!, sumValid / nValid, { rtol: 1e-12, atol: 0 });
  }
});

Deno.test("tokenCost(): rows without the per-question arrays are left out; arrays of unequal length name the row", () => {
  const plain = { ...row("A", "memory", 2, [1], [10], [true]) };
  delete plain.questionTurns;
  assert.deepEqual(tokenCost([plain]), []);
  const bad = row("SFT", "full", 8, [3, 4], [10], [true, true]);
  assert.throws(
    () => tokenCost([bad]),
    /SFT \(full\) at 8 objectives has 2 questionTurns, 1 questionTokens and 2 questionValid/,
  );
  // a row of no episodes has nothing to average: left out, not NaN
  assert.deepEqual(tokenCost([row("A", "memory", 2, [], [], [])]), []);
  // no valid episode, no turn: null, not NaN
  const [c] = tokenCost([row("A", "memory", 2, [0, 0], [0, 0], [false, false])]);
  assert.deepEqual([c!.validTurns, c!.tokensPerTurn], [null, null]);
});

Deno.test("tokenCostMarkdown(): the table per test set, and the largest set's reading against the teacher", () => {
  const cost = tokenCost([
    row("Teacher", "full", 2, [4, 4], [400, 400], [true, true], 180),
    row("Teacher", "full", 8, [11, 11], [4400, 4600], [true, true], 700),
    row("Teacher", "memory", 2, [4, 4], [280, 280], [true, true], 95),
    row("Teacher", "memory", 8, [11, 11], [1200, 1260], [true, true], 126),
    row("SFT", "full", 8, [4, 6], [800, 1400], [false, true], 340),
    row("MemPO", "memory", 8, [10, 10], [1100, 1100], [true, false], 140),
  ]);
  const md = tokenCostMarkdown(cost);
  assert.match(md, /^## What the tokens pay for\n/);
  assert.match(md, /\| agent \| 2 obj \| 8 obj \|/);
  // SFT (full) at 8: 5 turns, 6 for its one valid episode, 2200 / 10 = 220 tokens per turn; no 2-objective row
  assert.match(md, /\| SFT \(full\) \| – \| 5\.0 \(6\.0\) \/ 220 \|/);
  assert.match(md, /\| Teacher \(memory\) \| 4\.0 \(4\.0\) \/ 70 \| 11\.0 \(11\.0\) \/ 112 \|/);
  assert.match(
    md,
    /episodes end after 5\.0 turns on average and MemPO's after 10\.0, where the teacher's take 11\.0 turns\./,
  );
  // MemPO 110 per turn against 220
  assert.match(md, /MemPO spends 0\.50× the full-context agent's tokens per turn\./);
  // the teacher at 8: 1230 / 4500 = 0.27 of the total, 126 / 700 = 0.18 of the peak
  assert.match(md, /memory context spends 0\.27× the full context's total tokens and 0\.18× its peak context\./);
  assert.equal(tokenCostMarkdown([]), "");
  // without the teacher or MemPO there is nothing to read off: the table alone
  assert.doesNotMatch(tokenCostMarkdown(cost.filter((c) => c.agent === "SFT")), /end after|at the same work/i);
});

Deno.test("tokenCostMarkdown(): the teacher's ratios only at the same work (same turns, every episode valid)", () => {
  const rows = (memoryTurns: number, memoryValid: boolean[]) =>
    tokenCost([
      row("Teacher", "full", 8, [11, 11], [4400, 4600], [true, true], 700),
      row("Teacher", "memory", 8, [memoryTurns, memoryTurns], [1200, 1260], memoryValid, 126),
    ]);
  assert.match(tokenCostMarkdown(rows(11, [true, true])), /At the same work/);
  // one teacher episode fewer turns, or one broken: not the same work
  assert.doesNotMatch(tokenCostMarkdown(rows(10, [true, true])), /At the same work/);
  assert.doesNotMatch(tokenCostMarkdown(rows(11, [true, false])), /At the same work/);
  // a teacher row missing: the table alone
  assert.doesNotMatch(tokenCostMarkdown(rows(11, [true, true]).slice(1)), /At the same work/);
});

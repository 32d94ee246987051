import assert from "node:assert/strict";
import type { EvalRow } from "../../lib/eval/evaluate.ts";
import { type PairedComparison, researchCheck, researchCheckMarkdown } from "../../lib/eval/research_check.ts";

const row = (
  agent: string,
  contextPolicy: "full" | "memory",
  objectives: number,
  em: number,
  totalTokens = 100,
  peakContext = 50,
  turns = 5,
): EvalRow => ({
  agent,
  contextPolicy,
  objectives,
  em,
  f1: em,
  formatValid: 1,
  reward: 0,
  totalTokens,
  peakContext,
  questionTokens: [totalTokens],
  questionTurns: [turns],
  episodes: 32,
});

const table = [
  row("SFT", "full", 2, 0.6),
  row("SFT", "full", 4, 0.4),
  row("SFT", "full", 8, 0.3, 6000, 1200, 6), // 0.3 ≤ 0.6 / 2: the collapse holds (exactly half); 1000 tokens a turn
  row("SFT", "memory", 4, 0.5),
  row("SFT", "memory", 6, 0.45),
  row("SFT", "memory", 8, 0.5), // ≥ 0.25 but < 2 × 0.3 = 0.6: does not hold
  row("MemPO", "memory", 4, 0.6),
  row("MemPO", "memory", 6, 0.5),
  row("MemPO", "memory", 8, 0.55, 3000, 401, 6), // 500/1000 tokens a turn = 0.5 holds; 401/1200 > 1/3 does not
  row("GRPO", "memory", 4, 0.55),
  row("GRPO", "memory", 6, 0.5),
  row("GRPO", "memory", 8, 0.5),
];

Deno.test("researchCheck(): collapse, memory holds and tokens at the largest test set, from the table's numbers", () => {
  const claims = researchCheck(table);
  assert.deepEqual(claims.slice(0, 4).map((c) => [c.objectives, c.holds]), [[8, true], [8, false], [8, true], [
    8,
    false,
  ]]);
  assert.equal(claims[0]!.detail, "0.30 vs 0.60 / 2");
  assert.equal(claims[2]!.detail, "500 vs 1000 (0.50×); total tokens 3000 vs 6000 (0.50×), reported, not judged");
  assert.equal(claims[3]!.detail, "401 vs 1200 (0.33×)");
  // one RL seed: the RL claims are shown but undecided, and there is no MemPO-vs-GRPO claim
  const rl = claims.slice(4);
  assert.deepEqual(rl.map((c) => c.claim.split(":")[0]), ["RL learns", "RL learns"]);
  assert.ok(rl.every((c) => !c.holds && /undecided/.test(c.detail)));
  assert.match(rl[0]!.detail, /^0\.55 vs SFT 0\.48 at one seed/); // mean of 0.6, 0.5, 0.55 vs of 0.5, 0.45, 0.5
});

Deno.test("researchCheck(): with compare.json, RL against the seed spread and MemPO > GRPO only where the interval excludes 0", () => {
  const compare: PairedComparison = {
    seeds: [0, 1, 2],
    rows: [0, 1, 2].flatMap((seed) =>
      [4, 6, 8].flatMap((objectives) => [
        { objectives, agent: "MemPO", seed, em: 0.6 + 0.01 * seed, f1: 0 }, // mean 0.61, spread 0.02
        { objectives, agent: "GRPO", seed, em: 0.5 + 0.1 * seed, f1: 0 }, // mean 0.6, spread 0.2
      ])
    ),
    paired: [
      { objectives: 4, meanDiff: 0.05, ciLow: 0.01, ciHigh: 0.09 },
      { objectives: 6, meanDiff: 0.05, ciLow: -0.01, ciHigh: 0.11 },
      { objectives: 8, meanDiff: 0.05, ciLow: 0, ciHigh: 0.1 }, // touching 0 does not exclude it
    ],
  };
  const claims = researchCheck(table, { compare }).slice(4);
  assert.deepEqual(claims.map((c) => [c.objectives, c.holds]), [[8, true], [8, false], [4, true], [6, false], [
    8,
    false,
  ]]);
  // SFT mean 0.4833: MemPO gains 0.127 > spread 0.02; GRPO gains 0.117 < spread 0.2
  assert.match(claims[0]!.detail, /gain 0\.13, spread 0\.02 over 3 seeds/);
  assert.equal(claims[2]!.detail, "+0.05 [0.01, 0.09] over 3 seeds");
  const md = researchCheckMarkdown(researchCheck(table, { compare }));
  assert.match(md, /4 of 9 claims hold\./);
  assert.match(researchCheckMarkdown([]), /nothing to check/);
});

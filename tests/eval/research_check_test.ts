import assert from "node:assert/strict";
import type { EvalRow } from "../../lib/eval/evaluate.ts";
import { researchCheck, researchCheckMarkdown } from "../../lib/eval/research_check.ts";

const row = (
  agent: string,
  contextPolicy: "full" | "memory",
  objectives: number,
  f1: number,
  totalTokens: number,
  peakContext: number,
): EvalRow => ({
  agent,
  contextPolicy,
  objectives,
  em: f1,
  f1,
  formatValid: 1,
  reward: 0,
  totalTokens,
  peakContext,
  episodes: 16,
});

Deno.test("researchCheck(): each claim at each objective count ≥ 4, from the table's numbers", () => {
  const rows = [
    row("SFT", "full", 2, 0.9, 100, 80), // below the threshold: not checked
    row("SFT", "full", 4, 0.30, 1200, 600),
    row("SFT", "memory", 4, 0.35, 500, 140), // not part of any claim
    row("GRPO", "memory", 4, 0.40, 450, 130),
    row("MemPO", "memory", 4, 0.45, 400, 120), // 400/1200 = 1/3 exactly: holds; 120/600 = 0.2: holds
    row("SFT", "full", 8, 0.20, 3000, 900),
    row("GRPO", "memory", 8, 0.25, 700, 150),
    row("MemPO", "memory", 8, 0.25, 1100, 190), // ties do not hold; 1100/3000 > 1/3; 190/900 > 1/5
  ];
  const claims = researchCheck(rows);
  assert.deepEqual(claims.map((c) => [c.objectives, c.holds]), [
    [4, true],
    [4, true],
    [4, true],
    [4, true],
    [8, false],
    [8, true],
    [8, false],
    [8, false],
  ]);
  assert.equal(claims[2]!.detail, "400 vs 1200 (0.33×)");
  assert.equal(claims[7]!.detail, "190 vs 900 (0.21×)");
  assert.deepEqual(researchCheck(rows, { minObjectives: 8 }).map((c) => c.objectives), [8, 8, 8, 8]);
  // with the teacher's rows, the token claims also show the ratio a perfect policy reaches
  const teacher = [row("Teacher", "full", 4, 1, 1000, 400), row("Teacher", "memory", 4, 1, 600, 100)];
  const withTeacher = researchCheck([...rows, ...teacher]);
  assert.equal(withTeacher[2]!.detail, "400 vs 1200 (0.33×; teacher 0.60×)");
  assert.equal(withTeacher[3]!.detail, "120 vs 600 (0.20×; teacher 0.25×)");
  assert.equal(withTeacher[6]!.detail, "1100 vs 3000 (0.37×)", "no teacher rows at 8");
  assert.equal(researchCheck(rows, { totalRatio: 0.4 })[6]!.holds, true);
  // missing agents leave their claims out
  assert.deepEqual(researchCheck(rows.filter((r) => r.agent !== "GRPO")).map((c) => c.claim.slice(0, 14)), [
    "MemPO total to",
    "MemPO peak con",
    "MemPO total to",
    "MemPO peak con",
  ]);
  const md = researchCheckMarkdown(claims);
  assert.match(md, /\| 8 \| MemPO F1 > GRPO F1 \(the memory advantage helps\) \| no \| 0\.25 vs 0\.25 \|/);
  assert.match(md, /5 of 8 claims hold\./);
});

import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { teacherDemonstrations } from "../../lib/train/demos.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import type { EvalRow } from "../../lib/eval/evaluate.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import {
  demoContexts,
  longestContexts,
  longestContextsMarkdown,
  trainingContexts,
} from "../../lib/eval/longest_contexts.ts";

Deno.test("demoContexts(), trainingContexts(): the longest demonstration per context policy (full-history ones are longer); RL stages by agent", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 22, { trainCount: 6, testCount: 1, trainObjectives: [3] });
  const data = await loadData(dir);
  const demos = await teacherDemonstrations(data, { count: 6, dropProbability: 0, seed: 1 });
  const rows: MetricsRow[] = [
    { stage: "pretrain", step: 0, "sft/loss": 3 },
    { stage: "mempo", step: 0, "rollout/peak_context_max": 180, "rollout/peak_context": 120 },
    { stage: "mempo", step: 1, "rollout/peak_context_max": 210 },
    { stage: "grpo", step: 0, "rollout/peak_context": 100 }, // logged before the max existed: no entry
    { stage: "dpo", step: 0, "rollout/peak_context_max": 999 }, // not an algorithm
  ];
  const t = trainingContexts(demoContexts(demos.episodes, demos.policies), rows);
  // reference: the same teacher's episodes run per context policy on the same questions
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0, seed: 1 });
  for (const policy of ["memory", "full"] as const) {
    const records = data.train.slice(policy === "memory" ? 0 : 3, policy === "memory" ? 3 : 6);
    const eps = await runEpisodes(teacher, tasksFromRecords(records), data, {
      contextPolicy: policy,
      maxTurns: 40,
      seed: 1,
      maxPositions: 2048,
      maxTurnTokens: 64,
    });
    assert.equal(t.demos[policy], Math.max(...eps.map((e) => e.peakContext)), policy);
  }
  assert.ok(t.demos.full! > t.demos.memory!, `full ${t.demos.full}, memory ${t.demos.memory}`);
  assert.deepEqual(t.rl, { MemPO: 210 });
  assert.throws(() => demoContexts(demos.episodes, []), /policies must have one entry per episode \(6\)/);
  assert.deepEqual(trainingContexts({}, []), { demos: {}, rl: {} });
});

Deno.test("longestContexts() / longestContextsMarkdown(): training columns per agent, test sets, '*' past every training context", () => {
  const row = (agent: string, contextPolicy: "full" | "memory", objectives: number, maxPeakContext?: number) =>
    ({ agent, contextPolicy, objectives, maxPeakContext }) as EvalRow;
  const rows = [
    row("Teacher", "full", 2, 500),
    row("SFT", "full", 2, 480),
    row("SFT", "full", 8, 1600),
    row("SFT", "memory", 2, 200),
    row("SFT", "memory", 8, 230),
    row("GRPO", "memory", 2, 190),
    row("GRPO", "memory", 8, 260),
    row("Old", "memory", 2), // an eval.json row from before maxPeakContext: left out
  ];
  const table = longestContexts(rows, { demos: { full: 900, memory: 240 }, rl: { GRPO: 250 } });
  assert.deepEqual(table.map((r) => [r.agent, r.contextPolicy, r.sftDemos, r.rlRollouts, r.test]), [
    ["Teacher", "full", undefined, undefined, { 2: 500 }],
    ["SFT", "full", 900, undefined, { 2: 480, 8: 1600 }],
    ["SFT", "memory", 240, undefined, { 2: 200, 8: 230 }],
    ["GRPO", "memory", 240, 250, { 2: 190, 8: 260 }],
  ]);
  const md = longestContextsMarkdown(table).split("\n").filter((l) => l.startsWith("|"));
  assert.equal(md[0], "| agent | trained: SFT demos | trained: RL rollouts | test 2 obj | test 8 obj |");
  assert.equal(md[2], "| Teacher (full) | – | – | 500 | – |");
  assert.equal(md[3], "| SFT (full) | 900 | – | 480 | 1600 * |");
  assert.equal(md[4], "| SFT (memory) | 240 | – | 200 | 230 |");
  assert.equal(md[5], "| GRPO (memory) | 240 | 250 | 190 | 260 * |");
  assert.equal(longestContextsMarkdown([]), "");
});

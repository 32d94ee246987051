import assert from "node:assert/strict";
import { SFT_STAGES, WARMUP_STAGES } from "../lib/stages.ts";
import { ALGORITHMS } from "../lib/config/experiment.ts";

Deno.test("stages: the warm-ups, then SFT; no RL algorithm shares a stage name", () => {
  assert.deepEqual([...WARMUP_STAGES], ["pretrain", "recall"]);
  assert.deepEqual(SFT_STAGES, ["pretrain", "recall", "sft"]);
  assert.ok(ALGORITHMS.every((a) => !SFT_STAGES.includes(a)));
});

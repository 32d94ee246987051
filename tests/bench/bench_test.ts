// `deno task bench` end to end at its tiny size: every workload, the RL step of the main job's configuration with its
// parts, the PyTorch reference where torch is installed; exit 0, one JSON object on stdout, no stack trace.
import assert from "node:assert/strict";
import { hasTorch } from "../_helpers.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("deno task bench --tiny: exits 0 and prints every workload, the RL step and its parts as one JSON object", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "bench", "--tiny"],
    cwd: root,
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |Stack backtrace|Uncaught|error:/, stderr);
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 1, `one line on stdout, got:\n${stdout}`);
  const r = JSON.parse(lines[0]!);
  assert.equal(r.tiny, true);
  assert.equal(r.params, 918656); // the bench preset: V 512, D 128, L 4, H 4, ffn 384
  for (const k of ["train_tokens_per_s", "score_tokens_per_s", "generate_tokens_per_s", "gemm_peak_gflops"]) {
    assert.ok(Number.isFinite(r[k]) && r[k] > 0, `${k}: ${r[k]}`);
  }
  // the RL step: its parts are the step's metrics row's (rollout, MemPO's scoring, advantages, update) and sum to it
  assert.ok(r.rl_step_seconds > 0, `rl_step_seconds: ${r.rl_step_seconds}`);
  const parts = r.rl_step_parts_seconds as Record<string, number>;
  assert.deepEqual(Object.keys(parts), ["rollout", "memory_reward", "advantages", "update"]);
  for (const [k, v] of Object.entries(parts)) assert.ok(v > 0, `rl_step_parts_seconds.${k}: ${v}`);
  const sum = Object.values(parts).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - r.rl_step_seconds) < 1e-6, `parts sum to ${sum}, the step took ${r.rl_step_seconds}`);
  assert.ok(parts.rollout! > parts.advantages!, "the tiny step samples tokens (its rollout is not empty)");
  assert.equal(r.rl_step_episodes, 2); // --tiny: 1 question × 2 rollouts
  assert.equal(r.rl_step_policy, "untrained (--tiny)");
  if (await hasTorch("deno task bench's PyTorch side")) {
    assert.equal(typeof r.torch, "object", `torch: ${JSON.stringify(r.torch)}`);
    assert.equal(r.torch.params, r.params, "bench/torch_ref.py's model has the bench model's parameter count");
    assert.ok(r.ratio.train_tokens_per_s > 0);
  }
});

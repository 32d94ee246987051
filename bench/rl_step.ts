// rl_step_seconds: one MemPO step of the default training preset (rollouts, memory-reward scoring,
// advantages, update), timed after a warm-up step. Uses runs/default/sft when it exists (a policy that
// writes real multi-turn episodes), else an untrained model (episodes end early: a lower bound).
import { copyModel, createModel, trainableVariables } from "../lib/model/params.ts";
import { modelPreset } from "../lib/model/config.ts";
import { loadCheckpoint } from "../lib/model/checkpoint.ts";
import { createAdamW } from "../lib/optim/adamw.ts";
import { resolveConfig } from "../lib/config/experiment.ts";
import { rlStep } from "../lib/train/rl_trainer.ts";
import { ensureData } from "../lib/pipeline/pipeline.ts";

/** Seconds of one MemPO step of the default preset, and which policy was used. */
export async function measureRlStep(): Promise<{ seconds: number; policy: string }> {
  const config = resolveConfig("default");
  const data = await ensureData({ ...config, dataDir: "data/default" });
  const ckpt = "runs/default/sft";
  const fromCheckpoint = await Deno.stat(`${ckpt}/config.json`).then(() => true, () => false);
  const policy = fromCheckpoint
    ? (await loadCheckpoint(ckpt, { trainable: true })).models.policy!
    : createModel(modelPreset(config.model, data.tokenizer.size), { seed: 0 });
  const reference = copyModel(policy);
  const optimizer = createAdamW(trainableVariables(policy), { lr: config.rl.lr, weightDecay: 0 });
  const ctx = { algorithm: "mempo" as const, policy, optimizer, reference, data, config: config.rl, seed: 0 };
  await rlStep(ctx, 0);
  const t0 = performance.now();
  await rlStep(ctx, 1);
  const seconds = (performance.now() - t0) / 1000;
  optimizer.dispose();
  policy.dispose();
  reference.dispose();
  return { seconds, policy: fromCheckpoint ? ckpt : "untrained (no runs/default/sft yet)" };
}

// rl_step_seconds: one MemPO step of the main job's configuration (`deno task train`, the default preset), built as the
// pipeline builds it (rlModelsFromSft, rlStepContext: the teacher of rl.joinShare; the workers of the rollouts, the
// memory scoring and the reference pass, started once) and timed after a warm-up step, with the parts the step's
// metrics row logs. From runs/default/sft when it exists, else the released SFT policy the main job starts from
// (release/sft: real multi-turn episodes with memories), else an untrained model (episodes end early: a lower bound).
import { loadCheckpoint } from "../lib/model/checkpoint.ts";
import { modelPreset } from "../lib/model/config.ts";
import { createModel } from "../lib/model/params.ts";
import { loadRelease } from "../lib/release/release.ts";
import { type ConfigOverrides, presetDataDir, resolveConfig } from "../lib/config/experiment.ts";
import { checkRunTokenizer } from "../lib/data/run_tokenizer.ts";
import { gradientWorkersFor } from "../lib/train/gradient_workers.ts";
import { rlModelsFromSft, rlStep, rlStepContext } from "../lib/train/rl_trainer.ts";
import { ensureData } from "../lib/pipeline/pipeline.ts";
import { pathExists } from "../lib/path_exists.ts";

/** `--tiny`: the default preset's step at a toy size (a tiny model, 1 question × 2 rollouts, a small world). */
const TINY: ConfigOverrides = {
  model: "tiny",
  data: { trainCount: 8, testCount: 1, testObjectives: [1], auxWorlds: 0, sizes: { distractors: 0 } },
  rl: { questionsPerStep: 1, groupSize: 2 },
  eval: { questions: 1 },
};

/** One timed step: its seconds, the parts its metrics row logs, and what it ran. */
export interface RlStepTiming {
  /** The step's `time/step`. */
  seconds: number;
  /** `time/rollout`, `time/memory_reward` (MemPO's P_mem / P_full scoring), `time/advantages`, `time/update`. */
  parts: { rollout: number; memory_reward: number; advantages: number; update: number };
  /** The policy stepped: a checkpoint's folder, or why an untrained model. */
  policy: string;
  /** Workers of the rollouts, the memory scoring and the reference pass (0: this thread). */
  workers: number;
  /** Episodes of the step. */
  episodes: number;
}

/**
 * Times one MemPO step of the default preset after a warm-up step.
 * `workers`: the step's workers (1: this thread); absent, what the pipeline takes (`MEMPO_SFT_WORKERS`).
 * `questions`: questions per step (default: the preset's; a smaller step for a shared machine).
 */
export async function measureRlStep(
  options: { tiny?: boolean; workers?: number; questions?: number } = {},
): Promise<RlStepTiming> {
  const tiny = options.tiny === true;
  const tmp = tiny ? await Deno.makeTempDir({ prefix: "bench_rl_" }) : undefined;
  const questions = options.questions === undefined ? {} : { rl: { questionsPerStep: options.questions } };
  const config = resolveConfig(
    "default",
    tiny ? { ...TINY, dataDir: tmp } : { dataDir: presetDataDir("default"), ...questions },
  );
  const run = "runs/default";
  try {
    const data = await ensureData(config);
    const fromRun = !tiny && await pathExists(`${run}/sft/config.json`);
    if (fromRun) await checkRunTokenizer(run, config.dataDir, "evaluate");
    const expect = modelPreset(config.model, data.tokenizer.size);
    const fromRelease = !tiny && !fromRun && config.release !== undefined && await pathExists(config.release);
    const sft = fromRun
      ? (await loadCheckpoint(`${run}/sft`, { expect, trainable: false })).models.policy!
      : fromRelease
      ? (await loadRelease(config.release!)).model
      : createModel(expect, { seed: config.seed, name: "sft" });
    const models = rlModelsFromSft(sft, "mempo", config);
    sft.dispose();
    const ctx = rlStepContext(
      config,
      data,
      "mempo",
      models,
      gradientWorkersFor(options.workers === undefined ? undefined : String(options.workers)),
    );
    try {
      await rlStep(ctx, 0);
      const row = await rlStep(ctx, 1);
      const t = (k: string) => row[`time/${k}`] as number;
      return {
        seconds: t("step"),
        parts: {
          rollout: t("rollout"),
          memory_reward: t("memory_reward"),
          advantages: t("advantages"),
          update: t("update"),
        },
        policy: fromRun
          ? `${run}/sft`
          : fromRelease
          ? config.release!
          : tiny
          ? "untrained (--tiny)"
          : `untrained (no ${run}/sft nor release)`,
        workers: ctx.workers?.size ?? 0,
        episodes: config.rl.questionsPerStep * config.rl.groupSize,
      };
    } finally {
      ctx.workers?.close(); // open workers keep the process alive
      for (const x of [models.policy, models.reference, models.optimizer]) x.dispose();
    }
  } finally {
    if (tmp !== undefined) await Deno.remove(tmp, { recursive: true });
  }
}

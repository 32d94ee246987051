/**
 * A finished run opened for reading its checkpoints again (`deno task eval`,
 * the probes): its backend started, its data loaded once the run's tokenizer
 * is checked equal to the data's, and checkpoints loaded with the run's
 * architecture.
 *
 * @module
 */
import { setBackend } from "../backend.ts";
import { type DataSplit, loadData, type LoadedData } from "../data/build.ts";
import { checkRunTokenizer } from "../data/run_tokenizer.ts";
import { loadCheckpoint } from "../model/checkpoint.ts";
import { type ModelConfig, modelPreset } from "../model/config.ts";
import type { Model } from "../model/params.ts";
import { ALGORITHMS, type ExperimentConfig } from "../config/experiment.ts";

/**
 * The `--policy NAME` flag of the tools that read one checkpoint of a run ({@linkcode openRun}'s `load`): the SFT
 * policy or an RL algorithm's.
 */
export const POLICY_FLAG = Object.freeze(
  {
    type: "string",
    choices: ["sft", ...ALGORITHMS],
    default: "sft",
    value: "NAME",
    help: "which checkpoint",
  } as const,
);

/** A run opened by {@linkcode openRun}. */
export interface OpenedRun {
  /** The run's data (its `dataDir`). */
  data: LoadedData;
  /** The architecture every checkpoint of the run must have (`model` over the run's tokenizer). */
  expect: ModelConfig;
  /** Loads `RUN/<stage>`'s policy, frozen, refused unless it is `expect` (the caller owns it). */
  load(stage: string): Promise<Model>;
}

/**
 * Opens a run whose config is read: starts its backend, refuses data whose
 * tokenizer differs from the run's (the checkpoints' token ids belong to the
 * run's), loads the data, and returns a loader of its checkpoints.
 *
 * ```text
 * setBackend(config.backend) → checkRunTokenizer(run, config.dataDir) → loadData(config.dataDir)
 * load(stage) = loadCheckpoint(run/stage, { trainable: false, expect: modelPreset(config.model, |vocab|) }).policy
 * ```
 *
 * Source: this package (the one way the tools read a run's checkpoints).
 *
 * @param runDir The run directory.
 * @param config Its config (`readRunConfig(runDir)`).
 * @param options `split`: the data's sets read as its test sets (`loadData`). @default { split: "test" }
 * @returns The opened run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData } from "../data/build.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { openRun } from "./open_run.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * await buildData(dataDir, 0, { trainCount: 4, testCount: 1, testObjectives: [1], sizes: { distractors: 0 } });
 * const run = await Deno.makeTempDir();
 * await Deno.copyFile(`${dataDir}/tokenizer.json`, `${run}/tokenizer.json`);
 * const opened = await openRun(run, resolveConfig("quick", { dataDir }));
 * assert.equal(opened.expect.vocabSize, opened.data.tokenizer.size);
 * await assert.rejects(() => opened.load("sft"), /sft/);
 * ```
 */
export async function openRun(
  runDir: string,
  config: ExperimentConfig,
  options: { split?: DataSplit } = {},
): Promise<OpenedRun> {
  await setBackend(config.backend);
  await checkRunTokenizer(runDir, config.dataDir, "evaluate");
  const data = await loadData(config.dataDir, options);
  const expect = modelPreset(config.model, data.tokenizer.size);
  return {
    data,
    expect,
    load: async (stage) => (await loadCheckpoint(`${runDir}/${stage}`, { trainable: false, expect })).models.policy!,
  };
}

/// <reference lib="deno.worker" />
/**
 * The worker of {@link ./eval_workers.ts}: the run's data (loaded from its
 * directory) and copies of the evaluated models on the single-threaded wasm
 * build; each job is one cell, of the evaluation (`evaluateCell`) or of the
 * equal-reward groups (`equalRewardCell`), posted back as its row. Modules
 * load on the first message (a worker's static imports of the backend keep
 * its message loop from starting under Deno).
 *
 * @module
 */
import type { EvalConfig } from "../config/experiment.ts";
import type { DataSplit } from "../data/build.ts";
import type { ContextPolicy } from "../env/context.ts";
import type { EvalRow } from "./evaluate.ts";
import type { EqualRewardGroupsOptions, EqualRewardGroupsRow } from "./equal_reward_groups.ts";
import type { EpisodeRecord } from "../episodes/episode_record.ts";

/** The first message: where the data is and the models (architecture and weights). */
export interface EvalWorkerInit {
  /** The data directory (`config.dataDir`), loaded as the pipeline loads it. */
  dataDir: string;
  /** The sets evaluated (`LoadedData.split`). @default "test" */
  split?: DataSplit;
  /** The models: config and every trainable variable's values, in `trainableVariables` order. */
  models: { config: unknown; weights: Float32Array[] }[];
  /** The caller's test sets (`testFingerprint`): the worker refuses data that differ. */
  fingerprint: string;
}

/** One cell: the agent (its name, context policy and model index) on the test set of `objectives`. */
export type EvalJob =
  & {
    /** Agent name (the row's label). */
    name: string;
    /** Its context policy. */
    contextPolicy: ContextPolicy;
    /** Index into the init's models. */
    model: number;
    /** The test set's objective count. */
    objectives: number;
  }
  & (
    | {
      kind: "eval";
      config: EvalConfig;
      /** Post the cell's episodes back as records beside the row (`{ ok, episodes }`). */
      episodes?: boolean;
    }
    | { kind: "groups"; options: EqualRewardGroupsOptions }
  );

/** A reply: the cell's row, or the error; an eval job with `episodes` also gets the cell's episode records. */
export interface EvalReply<R> {
  /** The row. */
  ok?: R;
  /** The cell's episodes (`EvalJob.episodes`). */
  episodes?: EpisodeRecord[];
  /** What went wrong. */
  error?: string;
}

type Run = (job: EvalJob) => Promise<EvalReply<EvalRow | EqualRewardGroupsRow>>;
let ready: Promise<Run> | undefined;

async function start(init: EvalWorkerInit): Promise<Run> {
  const { setBackend } = await import("../backend.ts");
  const { createModel, setTrainableWeights } = await import("../model/params.ts");
  const { loadData } = await import("../data/build.ts");
  const { evaluateCell, testFingerprint } = await import("./evaluate.ts");
  const { equalRewardCell } = await import("./equal_reward_groups.ts");
  await setBackend("wasm", { threads: 1 });
  const data = await loadData(init.dataDir, { split: init.split ?? "test" });
  if (testFingerprint(data) !== init.fingerprint) {
    throw new RangeError(
      `The ${init.split ?? "test"} sets in ${init.dataDir} are not the ones being evaluated (dataDir, split)`,
    );
  }
  const models = init.models.map((m) => {
    const model = createModel(m.config as Parameters<typeof createModel>[0], { seed: 0 });
    setTrainableWeights(model, m.weights);
    return model;
  });
  return async (job) => {
    const model = models[job.model];
    if (model === undefined) throw new RangeError(`No model ${job.model} in the eval worker`);
    const agent = { name: job.name, contextPolicy: job.contextPolicy, model };
    if (job.kind === "groups") return { ok: await equalRewardCell(agent, data, job.objectives, job.options) };
    let episodes: EpisodeRecord[] | undefined;
    const keep = job.episodes ? (records: EpisodeRecord[]) => void (episodes = records) : undefined;
    const ok = await evaluateCell(agent, data, job.objectives, job.config, keep);
    return episodes === undefined ? { ok } : { ok, episodes };
  };
}

self.onmessage = async (e: MessageEvent<{ init: EvalWorkerInit } | { job: EvalJob } | "close">) => {
  if (e.data === "close") {
    self.close();
    return;
  }
  try {
    if ("init" in e.data) {
      ready = start(e.data.init);
      await ready;
      self.postMessage({ ok: null });
    } else {
      if (ready === undefined) throw new Error("The eval worker got a job before its init");
      self.postMessage(await (await ready)(e.data.job));
    }
  } catch (err) {
    self.postMessage({ error: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) });
  }
};

/**
 * The evaluation on worker processes: each model agent's cells (one test set
 * each, of the evaluation and of the equal-reward groups) run in Deno workers
 * on the single-threaded wasm build, one core each, the scripted teacher's on
 * the main thread. A cell's decoding depends only on the model, its inputs
 * and the cell's seed, and results are bit for bit the same at every thread
 * count, so the rows are the single-process functions' to the bit, in their
 * order (tested); on two cores the decoding loop, which is mostly dispatch on
 * one thread, runs twice over at once.
 *
 * @module
 */
import type { EvalConfig } from "../config/experiment.ts";
import { tf } from "../tf.ts";
import { dataDirOf, type LoadedData } from "../data/build.ts";
import { type Model, trainableVariables } from "../model/params.ts";
import { integerSetting } from "../integer_setting.ts";
import {
  type AgentSpec,
  type EvalRow,
  evaluateCell,
  type OnEvalEpisodes,
  testFingerprint,
  testSizes,
} from "./evaluate.ts";
import { equalRewardCell, type EqualRewardGroupsOptions, type EqualRewardGroupsRow } from "./equal_reward_groups.ts";
import type { EvalJob, EvalReply, EvalWorkerInit } from "./_eval_worker.ts";

/**
 * Eval workers of `deno task train` and `deno task eval`: `MEMPO_EVAL_WORKERS`
 * (0 or 1: the evaluation in the main process), default the machine's cores.
 *
 * Source: this package.
 *
 * @param value The raw value (default: the environment's).
 * @returns The worker count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { evalWorkersFromEnv } from "./eval_workers.ts";
 *
 * assert.equal(evalWorkersFromEnv("0"), 0);
 * assert.equal(evalWorkersFromEnv(""), Math.max(1, navigator.hardwareConcurrency || 1));
 * assert.throws(() => evalWorkersFromEnv("two"), /MEMPO_EVAL_WORKERS must be an integer ≥ 0, current value is "two"/);
 * ```
 */
export function evalWorkersFromEnv(value?: string): number {
  return integerSetting("MEMPO_EVAL_WORKERS", {
    min: 0,
    fallback: Math.max(1, navigator.hardwareConcurrency || 1),
    value,
  });
}

/** A pool of eval workers ({@linkcode createEvalWorkers}). */
export interface EvalWorkers {
  /**
   * {@linkcode evaluateAgents}' rows, the model agents' cells on the workers; with `objectives`, those test sets'
   * cells only (the rows of `evaluateAgents` on the data with only those test sets); `onEpisodes` gets each cell's
   * episode records (`evaluateCell`'s), in the order the cells finish.
   */
  evaluate(
    agents: readonly AgentSpec[],
    config: EvalConfig,
    onRow?: (row: EvalRow) => void | Promise<void>,
    objectives?: readonly number[],
    onEpisodes?: OnEvalEpisodes,
  ): Promise<EvalRow[]>;
  /** {@linkcode equalRewardGroups}' rows, the model agents' cells on the workers. */
  equalRewardGroups(
    agents: readonly AgentSpec[],
    options: EqualRewardGroupsOptions,
    onRow?: (row: EqualRewardGroupsRow) => void | Promise<void>,
  ): Promise<EqualRewardGroupsRow[]>;
  /** Ends the workers (idempotent). */
  close(): void;
}

/**
 * Eval workers: `size` Deno workers, each with the data loaded from
 * `dataDir` and a copy of each of `models` (started on the first call), that
 * run cells of the evaluation and of the equal-reward groups. A call deals
 * its model agents' cells largest test set first (the full context before
 * the memory context), each to the next free worker, and runs the scripted
 * agents' cells on the main thread meanwhile; rows come back in the
 * single-process functions' order, the same to the bit (tested). Data whose
 * test sets differ from `data`'s are an error; an agent whose model is not
 * among `models` is a `RangeError`.
 *
 * Source: this package (data parallelism over evaluation cells).
 *
 * @param data Loaded data (test sets), as loaded from `dataDir`.
 * @param dataDir The data directory the workers load.
 * @param models The models the agents may use (their weights are copied at the first call).
 * @param size Worker count (≥ 1).
 * @returns The pool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { evaluateAgents } from "./evaluate.ts";
 * import { createEvalWorkers } from "./eval_workers.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 2, testObjectives: [1, 2] });
 * const data = await loadData(dir);
 * const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 0 });
 * const agents = [{ name: "SFT", model, contextPolicy: "memory" as const }];
 * const config = { questions: 2, maxTurns: 2, maxTurnTokens: 8 };
 * const workers = createEvalWorkers(data, dir, [model], 2);
 * try {
 *   assert.deepEqual(await workers.evaluate(agents, config), await evaluateAgents(agents, data, config));
 * } finally {
 *   workers.close();
 * }
 * model.dispose();
 * ```
 */
export function createEvalWorkers(
  data: LoadedData,
  dataDir: string,
  models: readonly Model[],
  size: number,
): EvalWorkers {
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`Cannot start eval workers: size must be an integer ≥ 1, current value is ${size}`);
  }
  const url = new URL("./_eval_worker.ts", import.meta.url).href;
  let pool: Promise<Worker>[] | undefined;
  const started: Worker[] = [];
  let closed = false;
  const ask = <T>(worker: Worker, message: unknown) =>
    new Promise<EvalReply<T>>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<EvalReply<T>>) => {
        if (e.data.error === undefined) resolve(e.data);
        else reject(new Error(`An eval worker failed: ${e.data.error}`));
      };
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(`An eval worker failed: ${e.message}`));
      };
      worker.postMessage(message);
    });
  const workers = () => {
    if (closed) throw new Error("Cannot evaluate: the eval workers are closed");
    if (pool === undefined) {
      const init: EvalWorkerInit = {
        dataDir,
        split: data.split ?? "test",
        fingerprint: testFingerprint(data),
        models: models.map((m) => ({
          config: m.config,
          weights: trainableVariables(m).map((v) => v.dataSync() as Float32Array),
        })),
      };
      pool = Array.from({ length: size }, async () => {
        const w = new Worker(url, { type: "module" });
        started.push(w);
        await ask(w, { init });
        return w;
      });
    }
    return pool;
  };
  // the cells of one call: the model agents' on the workers, the scripted agents' here; rows in agent × size order
  async function run<R>(
    agents: readonly AgentSpec[],
    job: { kind: "eval"; config: EvalConfig; episodes?: boolean } | {
      kind: "groups";
      options: EqualRewardGroupsOptions;
    },
    here: (agent: AgentSpec, objectives: number) => Promise<R>,
    onRow?: (row: R) => void | Promise<void>,
    only?: readonly number[],
    onEpisodes?: OnEvalEpisodes,
  ): Promise<R[]> {
    for (const k of only ?? []) {
      if (!data.test.has(k)) {
        throw new RangeError(
          `Cannot evaluate: objectives must be among the test sets (${testSizes(data)}), current value is ${k}`,
        );
      }
    }
    const sizes = testSizes(data).filter((k) => only === undefined || only.includes(k));
    const cells = agents.flatMap((agent, a) => {
      const model = "model" in agent ? models.indexOf(agent.model) : -1;
      if ("model" in agent && model < 0) {
        throw new RangeError(`Cannot evaluate ${agent.name}: its model is not one the eval workers were given`);
      }
      return sizes.map((objectives, s) => ({ agent, index: a * sizes.length + s, objectives, model }));
    });
    const rows: R[] = new Array(cells.length);
    const queue = cells.filter((c) => c.model >= 0).sort((x, y) =>
      y.objectives - x.objectives ||
      Number(x.agent.contextPolicy === "memory") - Number(y.agent.contextPolicy === "memory") ||
      x.index - y.index
    );
    const drain = async (ready: Promise<Worker>) => {
      if (queue.length === 0) return;
      const worker = await ready;
      for (let cell = queue.shift(); cell !== undefined; cell = queue.shift()) {
        const { name, contextPolicy } = cell.agent;
        const reply = await ask<R>(worker, {
          job: { ...job, name, contextPolicy, model: cell.model, objectives: cell.objectives } satisfies EvalJob,
        });
        rows[cell.index] = reply.ok as R;
        if (reply.episodes !== undefined) await onEpisodes?.(reply.episodes);
        await onRow?.(rows[cell.index]!);
      }
    };
    const scripted = async () => {
      for (const cell of cells.filter((c) => c.model < 0)) {
        rows[cell.index] = await here(cell.agent, cell.objectives);
        await onRow?.(rows[cell.index]!);
      }
    };
    await Promise.all([scripted(), ...(queue.length > 0 ? workers() : []).map(drain)]);
    return rows;
  }
  return {
    evaluate: (agents, config, onRow, objectives, onEpisodes) =>
      run(
        agents,
        { kind: "eval", config, ...(onEpisodes ? { episodes: true } : {}) },
        (a, k) => evaluateCell(a, data, k, config, onEpisodes),
        onRow,
        objectives,
        onEpisodes,
      ),
    equalRewardGroups: (agents, options, onRow) =>
      run(agents, { kind: "groups", options }, (a, k) => equalRewardCell(a, data, k, options), onRow),
    close() {
      if (closed) return;
      closed = true;
      for (const w of started) w.terminate();
    },
  };
}

/**
 * Eval workers where they give the same rows and a gain: `MEMPO_EVAL_WORKERS`
 * ≥ 2 ({@linkcode evalWorkersFromEnv}), the wasm backend, and data that
 * `loadData` read from a directory (which the workers load again);
 * otherwise `undefined`, and the caller evaluates in process.
 *
 * Source: this package (the one rule `deno task train`, `eval` and `compare` follow).
 *
 * @param data Loaded data.
 * @param models The models the workers will run.
 * @returns The workers (the caller closes them), or `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { evalWorkersFor } from "./eval_workers.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 2, testObjectives: [1] });
 * const data = await loadData(dir);
 * assert.equal(evalWorkersFor({ ...data }, []), undefined); // a copy: no directory to load it from
 * evalWorkersFor(data, [])?.close();
 * ```
 */
export function evalWorkersFor(data: LoadedData, models: readonly Model[]): EvalWorkers | undefined {
  const size = evalWorkersFromEnv();
  const dir = dataDirOf(data);
  return size >= 2 && dir !== undefined && tf.getBackend() === "wasm"
    ? createEvalWorkers(data, dir, models, size)
    : undefined;
}

/**
 * Data parallelism on one machine: a pool of Deno workers, each a copy of
 * the policy on the single-threaded wasm build, that compute the gradients
 * of an SFT step's micro-batches at once, one core each (every kernel, not
 * only the GEMMs the threaded build spreads), or score them (`pieceLogProbs`:
 * RL's reference pass). The main thread posts the
 * weights with each job, sums the pieces' gradients in their order, clips and
 * steps the optimizer, so a step gives the same numbers as one thread
 * summing the same pieces in turn (the builds agree to the bit). For RL's
 * rollouts a model is loaded once per step (`loadModel`) and each turn's
 * generation batches and each memory-scoring batch go to the next free
 * worker (`generate`, `scoreBatch`): the batches this thread would run, so
 * the same numbers.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { type Model, trainableVariables } from "../model/params.ts";
import type { LmBatch } from "./collate.ts";
import type { GenerateOptions, GenerateResult } from "../model/generate.ts";
import type {
  GenerateJob,
  GradientJob,
  GradientResult,
  LoadJob,
  PieceData,
  ScoreJob,
  ScoreResult,
  WorkerJob,
} from "./_gradient_worker.ts";
import { integerSetting } from "../integer_setting.ts";

/**
 * How many gradient workers the warm-up, SFT and RL stages of `deno task train`
 * use (RL: for the reference pass): `MEMPO_SFT_WORKERS`, default the machine's cores (0 or 1: none, the
 * steps on this thread; the stages use workers only on the wasm backend).
 * Either way a step gives the same numbers: its micro-batches are cut the
 * same way (`splitBalanced`) and summed in the same order.
 *
 * Source: this package (as `MEMPO_EVAL_WORKERS` for the evaluation).
 *
 * @param value The variable's value (default: read from the environment).
 * @returns The worker count, 0 or 1 for none; a `UsageError` naming the variable and value when it is not an integer ≥ 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sftWorkersFromEnv } from "./gradient_workers.ts";
 *
 * assert.equal(sftWorkersFromEnv("0"), 0);
 * assert.equal(sftWorkersFromEnv("2"), 2);
 * assert.equal(sftWorkersFromEnv(""), Math.max(1, navigator.hardwareConcurrency || 1));
 * assert.throws(() => sftWorkersFromEnv("two"), /MEMPO_SFT_WORKERS must be an integer ≥ 0, current value is "two"/);
 * ```
 */
export function sftWorkersFromEnv(value?: string): number {
  return integerSetting("MEMPO_SFT_WORKERS", {
    min: 0,
    fallback: Math.max(1, navigator.hardwareConcurrency || 1),
    value,
  });
}

/**
 * Gradient workers where they give a gain: `MEMPO_SFT_WORKERS` ≥ 2
 * ({@linkcode sftWorkersFromEnv}) on the wasm backend (the WebGL and CPU
 * backends keep the steps on this thread); otherwise `undefined`, and the
 * caller computes the pieces' gradients in process, with the same numbers.
 *
 * Source: this package (the one rule `deno task train`'s warm-up, SFT and RL follow; `evalWorkersFor` is the
 * evaluation's).
 *
 * @param value `MEMPO_SFT_WORKERS`'s value (default: read from the environment).
 * @returns The workers (the caller closes them), or `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gradientWorkersFor } from "./gradient_workers.ts";
 *
 * assert.equal(gradientWorkersFor("1"), undefined);
 * assert.equal(gradientWorkersFor("0"), undefined);
 * ```
 */
export function gradientWorkersFor(value?: string): GradientWorkers | undefined {
  const size = sftWorkersFromEnv(value);
  return size >= 2 && tf.getBackend() === "wasm" ? createGradientWorkers(size) : undefined;
}

/** A pool of gradient workers ({@linkcode createGradientWorkers}). */
export interface GradientWorkers {
  /** Workers in the pool. */
  size: number;
  /**
   * The gradients and loss values of each piece, in piece order, the pieces
   * dealt round-robin to the workers (one job per worker).
   */
  pieceGradients(
    model: Model,
    pieces: readonly LmBatch[],
    numTokens: number,
  ): Promise<{ grads: tf.NamedTensorMap; value: tf.Scalar }[]>;
  /**
   * The `[B, L]` log-probs of each piece's targets (`sequenceLogProbs`, no
   * gradient), in piece order, the pieces dealt round-robin to the workers;
   * the same values to the bit as scoring them on this thread.
   */
  pieceLogProbs(
    model: Model,
    pieces: readonly { tokens: tf.Tensor2D; targets: tf.Tensor2D }[],
    temperature?: number,
  ): Promise<tf.Tensor2D[]>;
  /**
   * Copies the model's weights into every worker, kept there under `slot` (a later load of the same slot replaces
   * them) for {@linkcode GradientWorkers.generate} and {@linkcode GradientWorkers.scoreBatch}: an RL step loads its
   * rollout weights once, then every turn's batches and its memory scoring read them.
   */
  loadModel(slot: string, model: Model): Promise<void>;
  /**
   * `generate(model, prompts, options)` on the next free worker with the model loaded under `slot`: the same
   * result to the bit as on this thread (one job; concurrent calls run on as many workers at once).
   */
  generate(
    slot: string,
    prompts: readonly (readonly number[])[],
    options: GenerateOptions,
  ): Promise<GenerateResult>;
  /**
   * One `[B, L]` batch's log-probs of its targets (`sequenceLogProbs` with the fused projections, no gradient, as
   * `scoreContinuations` scores a chunk), row-major, on the next free worker with the model loaded under `slot`.
   */
  scoreBatch(
    slot: string,
    batch: { shape: [number, number]; tokens: Int32Array; targets: Int32Array },
    temperature?: number,
  ): Promise<Float32Array>;
  /** Each worker's live tensor bytes after its last job (0 before its first): flat from step to step. */
  liveBytes(): number[];
  /** Ends the workers (idempotent). */
  close(): void;
}

/**
 * One job a worker at a time over a fixed set of workers: `submit` runs a job on the next free worker (in worker order
 * when several are free) and records that worker's live bytes in `live`; `acquire`/`release` hold workers for a job
 * that must reach all of them.
 */
function jobQueue(workers: readonly Worker[], live: number[]) {
  const idle = [...workers];
  const waiting: ((w: Worker) => void)[] = [];
  const acquire = () =>
    new Promise<Worker>((resolve) => (idle.length > 0 ? resolve(idle.shift()!) : waiting.push(resolve)));
  const release = (w: Worker) => (waiting.length > 0 ? waiting.shift()!(w) : idle.push(w));
  const run = <R>(worker: Worker, job: WorkerJob) =>
    new Promise<R>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<{ ok?: R; error?: string }>) => {
        if (e.data.ok !== undefined) resolve(e.data.ok);
        else reject(new Error(`A gradient worker failed: ${e.data.error}`));
      };
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(`A gradient worker failed: ${e.message}`));
      };
      worker.postMessage(job);
    });
  const submit = async <R extends { liveBytes: number }>(job: WorkerJob): Promise<R> => {
    const worker = await acquire();
    try {
      const r = await run<R>(worker, job);
      live[workers.indexOf(worker)] = r.liveBytes;
      return r;
    } finally {
      release(worker);
    }
  };
  return { acquire, release, run, submit };
}

/**
 * Starts `size` gradient workers.
 *
 * ```text
 * piece p → worker p mod W:   g_p = ∇ ( −Σ mask · log p(target) / numTokens ),  v_p = that loss
 * step:                        g = ((g_0 + g_1) + g_2) + …   (the order accumulateGradients adds them)
 * scoring, piece p → worker p mod W:   log p(target | tokens) / temperature's softmax, [B, L]
 * ```
 *
 * Source: data-parallel SGD (PyTorch DistributedDataParallel's gradient
 * all-reduce), here one machine's cores; bench/data_parallel.ts measured what it buys.
 *
 * @param size Workers (≥ 1).
 * @returns The pool; call `close()` when done (open workers keep the process alive).
 *
 * @example Two pieces on two workers give the gradients one thread gives
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { collateLm } from "./collate.ts";
 * import { createGradientWorkers } from "./gradient_workers.ts";
 *
 * const model = createModel(modelPreset("tiny", 12), { seed: 1 });
 * const pieces = [[1, 2, 3, 4], [5, 6, 7, 8, 9]].map((t) => collateLm([{ tokens: t, lossMask: t.map(() => 1) }], 0));
 * const workers = createGradientWorkers(2);
 * try {
 *   const out = await workers.pieceGradients(model, pieces, 7);
 *   assert.equal(out.length, 2);
 *   assert.ok(out.every((p) => p.value.dataSync()[0]! > 0));
 *   tf.dispose(out.flatMap((p) => [p.value, ...Object.values(p.grads)]));
 * } finally {
 *   workers.close();
 * }
 * tf.dispose(pieces.flatMap((p) => [p.tokens, p.targets, p.mask]));
 * model.dispose();
 * ```
 */
export function createGradientWorkers(size: number): GradientWorkers {
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`Cannot start gradient workers: size must be an integer ≥ 1, current value is ${size}`);
  }
  const url = new URL("./_gradient_worker.ts", import.meta.url).href;
  const workers = Array.from({ length: size }, () => new Worker(url, { type: "module" }));
  let closed = false;
  const live = workers.map(() => 0);
  const { acquire, release, run, submit } = jobQueue(workers, live);
  /**
   * Deals the pieces round-robin (piece i to group i mod W), one job per group with pieces, each on the next free
   * worker, and reads each piece's answer back in piece order.
   */
  const scatter = async <D, R extends { liveBytes: number }, O>(
    data: readonly D[],
    job: (mine: D[]) => WorkerJob,
    read: (result: R, j: number, piece: D) => O,
  ): Promise<O[]> => {
    const dealt = workers.map((_, w) => data.flatMap((d, i) => (i % size === w ? [{ d, i }] : [])));
    const results = await Promise.all(
      dealt.map((mine) => mine.length === 0 ? undefined : submit<R>(job(mine.map((m) => m.d)))),
    );
    const out: O[] = new Array(data.length);
    dealt.forEach((mine, w) => mine.forEach(({ d, i }, j) => out[i] = read(results[w]!, j, d)));
    return out;
  };
  /** The model's weights as posted with a job. */
  const weightsOf = (model: Model) => trainableVariables(model).map((v) => v.dataSync() as Float32Array);
  // loads go to every worker at once; one load at a time, so two never hold half the workers each
  let loading = Promise.resolve();
  const refuse = (what: string) => Promise.reject(new Error(`Cannot ${what}: the gradient workers are closed`));
  return {
    size,
    loadModel(slot, model) {
      if (closed) return refuse("load a model");
      const job: LoadJob = { kind: "load", slot, config: model.config, weights: weightsOf(model) };
      const done = loading.then(async () => {
        const all = await Promise.all(workers.map(acquire));
        try {
          await Promise.all(all.map(async (w) => {
            live[workers.indexOf(w)] = (await run<{ liveBytes: number }>(w, job)).liveBytes;
          }));
        } finally {
          all.forEach(release);
        }
      });
      loading = done.catch(() => {});
      return done;
    },
    async generate(slot, prompts, options) {
      if (closed) return refuse("generate");
      const job: GenerateJob = { kind: "generate", slot, prompts: prompts.map((p) => [...p]), options };
      const { liveBytes: _, ...result } = await submit<GenerateResult & { liveBytes: number }>(job);
      return result;
    },
    async scoreBatch(slot, batch, temperature = 1) {
      if (closed) return refuse("score");
      const job: ScoreJob = { kind: "score", slot, pieces: [batch], temperature };
      return (await submit<ScoreResult>(job)).logProbs[0]!;
    },
    pieceLogProbs(model, pieces, temperature = 1) {
      if (closed) return refuse("score");
      const weights = weightsOf(model);
      const data = pieces.map((p) => ({
        shape: p.tokens.shape as [number, number],
        tokens: p.tokens.dataSync() as Int32Array,
        targets: p.targets.dataSync() as Int32Array,
      }));
      return scatter(
        data,
        (mine): ScoreJob => ({ kind: "score", config: model.config, weights, pieces: mine, temperature }),
        (r: ScoreResult, j, d) => tf.tensor2d(r.logProbs[j]!, d.shape),
      );
    },
    pieceGradients(model, pieces, numTokens) {
      if (closed) return refuse("compute gradients");
      const variables = trainableVariables(model);
      const weights = weightsOf(model);
      const data: PieceData[] = pieces.map((p) => ({
        shape: p.tokens.shape as [number, number],
        tokens: p.tokens.dataSync() as Int32Array,
        targets: p.targets.dataSync() as Int32Array,
        mask: p.mask.dataSync() as Float32Array,
      }));
      return scatter(
        data,
        (mine): GradientJob => ({ kind: "gradients", config: model.config, weights, pieces: mine, numTokens }),
        (r: GradientResult, j) => {
          const piece = r.pieces[j]!;
          return {
            grads: Object.fromEntries(
              variables.map((v, k) => [v.name, tf.tensor(piece.grads[k]!, v.shape, "float32")]),
            ),
            value: tf.scalar(piece.value, "float32"),
          };
        },
      );
    },
    liveBytes: () => [...live],
    close() {
      if (closed) return;
      closed = true;
      for (const w of workers) w.terminate();
    },
  };
}

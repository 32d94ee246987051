/// <reference lib="deno.worker" />
/**
 * The worker of {@link ./gradient_workers.ts}: a copy of the policy on the
 * single-threaded wasm build that, for each job, takes the weights, computes
 * the gradients of its micro-batches' SFT loss (`sftStep`'s, each piece over
 * the step's token count) or their log-probs (a scoring job) and posts them back. It also keeps copies of
 * models by slot (a load job), with which it generates a batch (`generate`) or scores one (a scoring job
 * that names the slot): RL's rollouts and memory scoring. Modules load on the first
 * message (a worker's static imports of the backend keep its message loop
 * from starting under Deno).
 *
 * @module
 */
import type { GenerateOptions, GenerateResult } from "../model/generate.ts";

/** A micro-batch as arrays (`LmBatch`'s tensors read out). */
export interface PieceData {
  /** `[B, L]`. */
  shape: [number, number];
  /** Input ids. */
  tokens: Int32Array;
  /** Next-token ids. */
  targets: Int32Array;
  /** Loss mask. */
  mask: Float32Array;
}

/** One gradient job: the model's architecture, its weights, the pieces, the step's learned-token count. */
export interface GradientJob {
  /** The job's kind. */
  kind: "gradients";
  /** The model's config (`Model.config`). */
  config: unknown;
  /** Every trainable variable's values, in `trainableVariables` order. */
  weights: Float32Array[];
  /** The micro-batches. */
  pieces: PieceData[];
  /** Learned tokens of the whole step (every piece's loss is over it). */
  numTokens: number;
}

/**
 * One scoring job: the model (its architecture and weights, or the `slot` a load job filled), the pieces (their
 * masks unused), the temperature.
 */
export interface ScoreJob {
  /** The job's kind. */
  kind: "score";
  /** The model's config (`Model.config`), with `weights`. */
  config?: unknown;
  /** Every trainable variable's values, in `trainableVariables` order (absent: the `slot`'s model). */
  weights?: Float32Array[];
  /** The loaded model to score with, when no weights come with the job. */
  slot?: string;
  /** The micro-batches. */
  pieces: Omit<PieceData, "mask">[];
  /** Logit temperature. */
  temperature: number;
}

/** A load job: keep a copy of a model under `slot` (replacing the slot's weights), for later jobs that name it. */
export interface LoadJob {
  /** The job's kind. */
  kind: "load";
  /** The name later jobs use. */
  slot: string;
  /** The model's config (`Model.config`). */
  config: unknown;
  /** Every trainable variable's values, in `trainableVariables` order. */
  weights: Float32Array[];
}

/** A generation job: `generate(model, prompts, options)` with the `slot`'s model. */
export interface GenerateJob {
  /** The job's kind. */
  kind: "generate";
  /** The loaded model. */
  slot: string;
  /** Prompt token ids. */
  prompts: number[][];
  /** `generate`'s options. */
  options: GenerateOptions;
}

/** Any job of the worker. */
export type WorkerJob = GradientJob | ScoreJob | LoadJob | GenerateJob;

/** The answer to a scoring job: per piece, the `[B, L]` log-probs of its targets, row-major. */
export interface ScoreResult {
  /** Per piece. */
  logProbs: Float32Array[];
  /** The worker's live tensor bytes after the job. */
  liveBytes: number;
}

/** The answer: per piece, the gradients in variable order and the loss value. */
export interface GradientResult {
  /** Per piece. */
  pieces: { grads: Float32Array[]; value: number }[];
  /** The worker's live tensor bytes after the job (flat from job to job: nothing leaks). */
  liveBytes: number;
}

type Scalar = import("@tensorflow/tfjs").Scalar;
type Run = (
  job: WorkerJob,
) => Promise<GradientResult | ScoreResult | LoadResult | GenerateResult>;

/** The answer to a load job. */
interface LoadResult {
  liveBytes: number;
}

let ready: Promise<Run> | undefined;

async function start(): Promise<Run> {
  const { tf } = await import("../tf.ts");
  const { setBackend } = await import("../backend.ts");
  const { createModel, setTrainableWeights, trainableVariables } = await import("../model/params.ts");
  const { sequenceLogProbs } = await import("../model/score.ts");
  const { generate } = await import("../model/generate.ts");
  const { disposeFusedWeights, fuseWeights } = await import("../model/transformer.ts");
  const { maskedSum } = await import("../tensor/masked.ts");
  await setBackend("wasm", { threads: 1 });
  type Model = ReturnType<typeof createModel>;
  let model: Model | undefined; // the copy that gradient and scoring jobs post their weights into
  const loaded = new Map<string, Model>(); // the copies load jobs fill, by slot
  const slotModel = (slot: string) => {
    const m = loaded.get(slot);
    if (m === undefined) throw new RangeError(`No model loaded under ${JSON.stringify(slot)} in the gradient worker`);
    return m;
  };
  // a piece's inputs and next-token targets as the model reads them (both kinds of job)
  const inputs = (p: Omit<PieceData, "mask">) =>
    [tf.tensor2d(p.tokens, p.shape, "int32"), tf.tensor2d(p.targets, p.shape, "int32")] as const;
  const live = () => tf.memory().numBytes;
  return async (job) => {
    if (job.kind === "load") {
      const same = loaded.get(job.slot);
      if (same !== undefined && JSON.stringify(same.config) !== JSON.stringify(job.config)) {
        same.dispose();
        loaded.delete(job.slot);
      }
      const m = loaded.get(job.slot) ?? createModel(job.config as Parameters<typeof createModel>[0], { seed: 0 });
      loaded.set(job.slot, m);
      setTrainableWeights(m, job.weights);
      return { liveBytes: live() };
    }
    if (job.kind === "generate") {
      const out = await generate(slotModel(job.slot), job.prompts, job.options);
      return { ...out, liveBytes: live() };
    }
    let scoring: Model;
    if (job.kind === "score" && job.weights === undefined) scoring = slotModel(job.slot ?? "");
    else {
      model ??= createModel(job.config as Parameters<typeof createModel>[0], { seed: 0 });
      setTrainableWeights(model, job.weights!); // each job's weights, one copy (once kept alive: the heap ran out)
      scoring = model;
    }
    if (job.kind === "score") {
      // as scoreContinuations scores: no gradient, the fused projections (the same values to the bit)
      const fused = fuseWeights(scoring);
      let logProbs: Float32Array[];
      try {
        logProbs = job.pieces.map((p) =>
          tf.tidy(() => {
            const [tokens, targets] = inputs(p);
            return new Float32Array(sequenceLogProbs(scoring, tokens, targets, job.temperature, fused).dataSync());
          })
        );
      } finally {
        disposeFusedWeights(fused); // a failed piece leaves the worker's heap as it was
      }
      return { logProbs, liveBytes: live() };
    }
    const variables = trainableVariables(scoring);
    const pieces = job.pieces.map((p) => {
      const [tokens, targets] = inputs(p);
      const mask = tf.tensor2d(p.mask, p.shape, "float32");
      const { value, grads } = tf.variableGrads(
        () => tf.div(tf.neg(maskedSum(sequenceLogProbs(scoring, tokens, targets), mask)), job.numTokens) as Scalar,
        variables,
      );
      const out = {
        grads: variables.map((v) => new Float32Array(grads[v.name]!.dataSync() as Float32Array)),
        value: value.dataSync()[0]!,
      };
      tf.dispose([tokens, targets, mask, value, Object.values(grads)]);
      return out;
    });
    return { pieces, liveBytes: live() };
  };
}

self.onmessage = async (e: MessageEvent<WorkerJob | "close">) => {
  if (e.data === "close") {
    self.close();
    return;
  }
  try {
    ready ??= start();
    const run = await ready;
    self.postMessage({ ok: await run(e.data) });
  } catch (err) {
    self.postMessage({ error: (err as Error).stack ?? String(err) });
  }
};

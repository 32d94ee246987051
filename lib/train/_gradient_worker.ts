/// <reference lib="deno.worker" />
/**
 * The worker of {@link ./gradient_workers.ts}: a copy of the policy on the
 * single-threaded wasm build that, for each job, takes the weights, computes
 * the gradients of its micro-batches' SFT loss (`sftStep`'s, each piece over
 * the step's token count) or their log-probs (a scoring job) and posts them back. Modules load on the first
 * message (a worker's static imports of the backend keep its message loop
 * from starting under Deno).
 *
 * @module
 */

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

/** One scoring job: the model's architecture, its weights, the pieces (their masks unused), the temperature. */
export interface ScoreJob {
  /** The job's kind. */
  kind: "score";
  /** The model's config (`Model.config`). */
  config: unknown;
  /** Every trainable variable's values, in `trainableVariables` order. */
  weights: Float32Array[];
  /** The micro-batches. */
  pieces: Omit<PieceData, "mask">[];
  /** Logit temperature. */
  temperature: number;
}

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

let ready: Promise<(job: GradientJob | ScoreJob) => GradientResult | ScoreResult> | undefined;

async function start(): Promise<(job: GradientJob | ScoreJob) => GradientResult | ScoreResult> {
  const { tf } = await import("../tf.ts");
  const { setBackend } = await import("../backend/backend.ts");
  const { createModel, setTrainableWeights, trainableVariables } = await import("../model/params.ts");
  const { sequenceLogProbs } = await import("../model/score.ts");
  const { disposeFusedWeights, fuseWeights } = await import("../model/transformer.ts");
  const { maskedSum } = await import("../tensor/masked.ts");
  await setBackend("wasm", { threads: 1 });
  let model: ReturnType<typeof createModel> | undefined;
  // a piece's inputs and next-token targets as the model reads them (both kinds of job)
  const inputs = (p: Omit<PieceData, "mask">) =>
    [tf.tensor2d(p.tokens, p.shape, "int32"), tf.tensor2d(p.targets, p.shape, "int32")] as const;
  return (job: GradientJob | ScoreJob): GradientResult | ScoreResult => {
    model ??= createModel(job.config as Parameters<typeof createModel>[0], { seed: 0 });
    const variables = trainableVariables(model);
    setTrainableWeights(model, job.weights); // each job's weights, one copy (once kept alive: the heap ran out)
    if (job.kind === "score") {
      // as scoreContinuations scores: no gradient, the fused projections (the same values to the bit)
      const fused = fuseWeights(model);
      let logProbs: Float32Array[];
      try {
        logProbs = job.pieces.map((p) =>
          tf.tidy(() => {
            const [tokens, targets] = inputs(p);
            return new Float32Array(sequenceLogProbs(model!, tokens, targets, job.temperature, fused).dataSync());
          })
        );
      } finally {
        disposeFusedWeights(fused); // a failed piece leaves the worker's heap as it was
      }
      return { logProbs, liveBytes: tf.memory().numBytes };
    }
    const pieces = job.pieces.map((p) => {
      const [tokens, targets] = inputs(p);
      const mask = tf.tensor2d(p.mask, p.shape, "float32");
      const { value, grads } = tf.variableGrads(
        () => tf.div(tf.neg(maskedSum(sequenceLogProbs(model!, tokens, targets), mask)), job.numTokens) as Scalar,
        variables,
      );
      const out = {
        grads: variables.map((v) => new Float32Array(grads[v.name]!.dataSync() as Float32Array)),
        value: value.dataSync()[0]!,
      };
      tf.dispose([tokens, targets, mask, value, Object.values(grads)]);
      return out;
    });
    return { pieces, liveBytes: tf.memory().numBytes };
  };
}

self.onmessage = async (e: MessageEvent<GradientJob | ScoreJob | "close">) => {
  if (e.data === "close") {
    self.close();
    return;
  }
  try {
    ready ??= start();
    const run = await ready;
    const result = run(e.data);
    self.postMessage({ ok: result });
  } catch (err) {
    self.postMessage({ error: (err as Error).stack ?? String(err) });
  }
};

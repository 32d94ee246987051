/**
 * Per-token estimators of KL(π_θ ‖ π_ref) from sampled tokens, the
 * reference-model penalty of RLHF, GRPO and MemPO.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { assertSameShape } from "../tensor/shape.ts";

/**
 * Estimator names. verl's `kl` / `mse` / `k3` are this package's `k1` / `k2`
 * / `low_var_kl`; this package's `k3` is the unclamped MiniMind/TRL one.
 */
export type KlEstimator = "k1" | "abs" | "k2" | "k3" | "low_var_kl";

/** Every {@linkcode KlEstimator}. */
export const KL_ESTIMATORS: readonly KlEstimator[] = Object.freeze(["k1", "abs", "k2", "k3", "low_var_kl"]);

/** Options of {@linkcode klPenalty}. */
export interface KlPenaltyOptions {
  /** Which estimator. @default "low_var_kl" (verl's default) */
  estimator?: KlEstimator;
  /**
   * verl's `+` variants: the estimator's value with k2's gradient (an
   * unbiased KL gradient). @default false
   */
  straightThrough?: boolean;
}

function estimate(logProbs: tf.Tensor, refLogProbs: tf.Tensor, estimator: KlEstimator): tf.Tensor {
  const diff = tf.sub(logProbs, refLogProbs); // log π − log π_ref
  switch (estimator) {
    case "k1":
      return diff;
    case "abs":
      // |Δ| as Δ·sign(Δ): gradient sign(Δ), 0 at Δ = 0 (tf.abs's gradient there is −1)
      return tf.mul(diff, tf.sign(diff));
    case "k2":
      return tf.mul(0.5, tf.square(diff));
    case "k3": {
      const d = tf.neg(diff); // log π_ref − log π
      return tf.sub(tf.sub(tf.exp(d), d), 1);
    }
    case "low_var_kl": {
      const d = tf.clipByValue(tf.neg(diff), -20, 20);
      return tf.clipByValue(tf.sub(tf.sub(tf.exp(d), d), 1), -10, 10);
    }
    default: {
      const unreachable: never = estimator;
      throw new RangeError(`Unknown KL estimator ${String(unreachable)}`);
    }
  }
}

/**
 * Per-token KL penalty between the policy and the frozen reference model.
 *
 * ```text
 * Δ = logProbs − refLogProbs
 * k1          Δ
 * abs         |Δ|
 * k2          ½ Δ²
 * k3          exp(−Δ) + Δ − 1                          (MiniMind, TRL; unclamped)
 * low_var_kl  clamp(exp(d) − d − 1, −10, 10), d = clamp(−Δ, −20, 20)   (verl)
 * straightThrough: value of the estimator, gradient of k2
 * ```
 *
 * Shapes: `[B, T]` × `[B, T]` → `[B, T]` (reduce with `maskedMean` or `aggregateLoss`).
 *
 * Source: J. Schulman, "Approximating KL Divergence" (2020), estimators k1,
 * k2, k3; Shao et al. 2024 (arXiv:2402.03300) Eq. 4 uses k3.
 * Reference: verl `core_algos.py` `kl_penalty`, `kl_penalty_forward`; MiniMind
 * `train_grpo.py` (`exp(kl_div) − kl_div − 1`).
 *
 * @param logProbs log π_θ of the sampled tokens.
 * @param refLogProbs log π_ref of the same tokens.
 * @param options Estimator and straight-through switch.
 * @returns A new `[B, T]` tensor owned by the caller.
 *
 * @example Δ = log 2 under three estimators
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { klPenalty } from "./kl.ts";
 *
 * const lp = tf.tensor2d([[Math.log(2)]]);
 * const ref = tf.tensor2d([[0]]);
 * assertAllClose(klPenalty(lp, ref, { estimator: "k1" }), [[Math.LN2]]);
 * assertAllClose(klPenalty(lp, ref, { estimator: "k2" }), [[0.5 * Math.LN2 ** 2]]);
 * assertAllClose(klPenalty(lp, ref, { estimator: "k3" }), [[0.5 + Math.LN2 - 1]]);
 * ```
 */
export function klPenalty(
  logProbs: tf.Tensor,
  refLogProbs: tf.Tensor,
  options: KlPenaltyOptions = {},
): tf.Tensor {
  const { estimator = "low_var_kl", straightThrough = false } = options;
  if (!KL_ESTIMATORS.includes(estimator)) {
    throw new RangeError(
      `Cannot compute klPenalty: estimator must be one of ${KL_ESTIMATORS.join(", ")}, current value is ${
        JSON.stringify(estimator)
      }`,
    );
  }
  assertSameShape(logProbs, refLogProbs, "logProbs", "refLogProbs");
  if (!straightThrough || estimator === "k2") {
    return tf.tidy(() => estimate(logProbs, refLogProbs, estimator));
  }
  const f = tf.customGrad(
    ((lp: tf.Tensor, ref: tf.Tensor, save: tf.GradSaveFunc) => {
      save([lp, ref]);
      return {
        value: estimate(lp, ref, estimator),
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
          const diff = tf.sub(saved[0]!, saved[1]!); // ∂(½Δ²)/∂lp = Δ
          return [tf.mul(dy, diff), tf.neg(tf.mul(dy, diff))];
        },
      };
    }) as unknown as Parameters<typeof tf.customGrad>[0],
  );
  return f(logProbs, refLogProbs);
}

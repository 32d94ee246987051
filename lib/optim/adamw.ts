/**
 * AdamW (decoupled weight decay), which TensorFlow.js does not ship.
 *
 * @module
 */
import { tf } from "../tf.ts";

/** Hyperparameters of {@linkcode createAdamW}. */
export interface AdamWConfig {
  /** Learning rate η (can be overridden per step for schedules). */
  lr: number;
  /** β₁. @default 0.9 */
  beta1?: number;
  /** β₂. @default 0.999 */
  beta2?: number;
  /** ε. @default 1e-8 */
  eps?: number;
  /** λ, decoupled weight decay, applied to weights of rank ≥ 2 only (nanoGPT). @default 0.01 */
  weightDecay?: number;
}

/** An AdamW optimizer over a fixed variable list. */
export interface AdamW {
  /** Steps taken. */
  readonly stepCount: number;
  /** Applies one update from gradients keyed by variable name; returns nothing (no host read). */
  apply(grads: tf.NamedTensorMap, lr?: number): void;
  /** First and second moments by variable name, plus the step count (for checkpoints). */
  state(): { step: number; m: Map<string, tf.Tensor>; v: Map<string, tf.Tensor> };
  /** Restores moments and step count saved by `state()`. */
  load(state: { step: number; m: Map<string, tf.Tensor>; v: Map<string, tf.Tensor> }): void;
  /** Frees the moment tensors. */
  dispose(): void;
}

/**
 * Creates AdamW for `variables`.
 *
 * ```text
 * θ ← θ − η·λ·θ                       (rank ≥ 2 only)
 * m ← β₁ m + (1 − β₁) g;   v ← β₂ v + (1 − β₂) g²
 * θ ← θ − η · (m / (1 − β₁ᵗ)) / (sqrt(v / (1 − β₂ᵗ)) + ε)
 * ```
 *
 * Source: Loshchilov & Hutter 2019, "Decoupled Weight Decay Regularization",
 * arXiv:1711.05101, Algorithm 2.
 * Reference: `torch.optim.AdamW` (same update order and bias correction).
 *
 * @param variables The variables to optimise (explicit list).
 * @param config Hyperparameters.
 * @returns The optimizer.
 *
 * @example One step on f(x) = x²/2 from x = 1 moves x by −η
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { createAdamW } from "./adamw.ts";
 *
 * const x = tf.variable(tf.tensor1d([1]), true, "adamw_doc_x");
 * const opt = createAdamW([x], { lr: 0.1, weightDecay: 0 });
 * opt.apply({ adamw_doc_x: tf.tensor1d([1]) });
 * assertAllClose(x, [0.9], { rtol: 1e-5 });
 * opt.dispose();
 * x.dispose();
 * ```
 */
export function createAdamW(variables: readonly tf.Variable[], config: AdamWConfig): AdamW {
  const { beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01 } = config;
  if (!(config.lr >= 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(weightDecay >= 0)) {
    throw new RangeError(
      `Invalid AdamW config: need lr ≥ 0, 0 ≤ beta1, beta2 < 1, weightDecay ≥ 0, current values are ${config.lr}, ${beta1}, ${beta2}, ${weightDecay}`,
    );
  }
  let step = 0;
  const m = new Map<string, tf.Variable>();
  const v = new Map<string, tf.Variable>();
  const zeroVariable = (x: tf.Variable) => {
    const zeros = tf.zerosLike(x);
    const variable = tf.variable(zeros, false);
    zeros.dispose(); // the variable keeps its own reference to the data
    return variable;
  };
  for (const x of variables) {
    m.set(x.name, zeroVariable(x));
    v.set(x.name, zeroVariable(x));
  }
  return {
    get stepCount() {
      return step;
    },
    apply(grads, lr = config.lr) {
      step += 1;
      const c1 = 1 - beta1 ** step;
      const c2 = 1 - beta2 ** step;
      tf.tidy(() => {
        for (const x of variables) {
          const g = grads[x.name];
          if (g === undefined) continue;
          const mi = m.get(x.name)!;
          const vi = v.get(x.name)!;
          mi.assign(tf.add(tf.mul(mi, beta1), tf.mul(g, 1 - beta1)));
          vi.assign(tf.add(tf.mul(vi, beta2), tf.mul(tf.square(g), 1 - beta2)));
          const decayed = x.rank >= 2 && weightDecay > 0 ? tf.mul(x, 1 - lr * weightDecay) : x;
          const update = tf.div(tf.div(mi, c1), tf.add(tf.sqrt(tf.div(vi, c2)), eps));
          x.assign(tf.sub(decayed, tf.mul(update, lr)));
        }
      });
    },
    state() {
      return { step, m: new Map(m), v: new Map(v) };
    },
    load(s) {
      step = s.step;
      for (const [k, t] of s.m) m.get(k)?.assign(t);
      for (const [k, t] of s.v) v.get(k)?.assign(t);
    },
    dispose() {
      for (const t of [...m.values(), ...v.values()]) t.dispose();
      m.clear();
      v.clear();
    },
  };
}

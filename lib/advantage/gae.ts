/**
 * Generalized Advantage Estimation over response tokens, skipping tokens the
 * policy did not sample (tool output inside a response, padding).
 *
 * @module
 */
import { assertBinaryMask, assertInRange, assertMatrix, assertShapeEqual, type Matrix } from "./_validate.ts";

/** Inputs of {@linkcode computeGae}, all `[B][T]`. */
export interface GaeInputs {
  /** r_t, per-token rewards (outcome on the last valid token, KL penalties, …). */
  rewards: Matrix;
  /** V(s_t), the critic's values recorded at rollout. */
  values: Matrix;
  /** 1 = policy-sampled token; 0 = tool output or padding (skipped). */
  mask: Matrix;
}

/** Options of {@linkcode computeGae}. */
export interface GaeOptions {
  /** γ, discount, in [0, 1]. @default 1 (verl, MiniMind) */
  gamma?: number;
  /** λ, GAE trace decay, in [0, 1]. @default 1 */
  lambda?: number;
}

/** Result of {@linkcode computeGae}, both `[B][T]`, not whitened. */
export interface GaeResult {
  /** Â_t. */
  advantages: number[][];
  /** R̂_t = Â_t + V(s_t), the value target. */
  returns: number[][];
}

/**
 * GAE(γ, λ), walking each row backwards and skipping masked tokens.
 *
 * ```text
 * for t = T−1 … 0:
 *   δ_t = r_t + γ·V_next − V(s_t)
 *   if m_t = 1:  Â_t = δ_t + γλ·Â_next;  V_next ← V(s_t);  Â_next ← Â_t
 *   else:        Â_t = Â_next              (tool output / padding: carry across)
 * R̂_t = Â_t + V(s_t)
 * ```
 *
 * A masked token (a tool result inside a multi-turn response) contributes
 * neither its reward nor its value: the TD chain jumps over it, so a
 * response with a tool span has the same advantages on its sampled tokens as
 * the response with that span deleted. Like verl, a masked position holds
 * the carried advantage of the next sampled token (0 after the last one);
 * multiply by the mask where zeros are wanted.
 *
 * Shapes: `rewards`, `values`, `mask` `[B][T]` → `[B][T]` each.
 *
 * Source: Schulman et al. 2016, "High-Dimensional Continuous Control Using
 * Generalized Advantage Estimation", arXiv:1506.02438, Eq. 16.
 * Reference: verl `core_algos.py` `compute_gae_advantage_return` (the
 * observation-token skip); MiniMind `train_ppo.py` (no skip: equal when the
 * mask has no holes).
 *
 * @param inputs Rewards, values and the mask.
 * @param options γ and λ.
 * @returns Raw advantages and returns (whiten with `maskedWhiten`).
 *
 * @example γ = 1, λ = 1, outcome reward 1 on the last token
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { computeGae } from "./gae.ts";
 *
 * const { advantages, returns } = computeGae({
 *   rewards: [[0, 0, 1]],
 *   values: [[0.5, 0.25, 0.5]],
 *   mask: [[1, 1, 1]],
 * });
 * assertAllClose(advantages, [[0.5, 0.75, 0.5]]);
 * assertAllClose(returns, [[1, 1, 1]]);
 * ```
 */
export function computeGae(inputs: GaeInputs, options: GaeOptions = {}): GaeResult {
  const { gamma = 1, lambda = 1 } = options;
  const fn = "computeGae";
  assertInRange(gamma, 0, 1, "gamma", fn);
  assertInRange(lambda, 0, 1, "lambda", fn);
  const { rewards, values, mask } = inputs;
  const shape = assertMatrix(rewards, "rewards", fn);
  assertShapeEqual(shape, assertMatrix(values, "values", fn), "rewards", "values", fn);
  assertShapeEqual(shape, assertMatrix(mask, "mask", fn), "rewards", "mask", fn);
  assertBinaryMask(mask, "mask", fn);
  const [B, T] = shape;
  const advantages: number[][] = [];
  const returns: number[][] = [];
  for (let b = 0; b < B; b++) {
    const r = rewards[b]!;
    const v = values[b]!;
    const m = mask[b]!;
    const adv = new Array<number>(T).fill(0);
    let nextValue = 0;
    let lastGae = 0;
    for (let t = T - 1; t >= 0; t--) {
      if (m[t] === 1) {
        const delta = r[t]! + gamma * nextValue - v[t]!;
        lastGae = delta + gamma * lambda * lastGae;
        nextValue = v[t]!;
      }
      adv[t] = lastGae; // masked: tool output / padding carries the next sampled token's Â
    }
    advantages.push(adv);
    returns.push(adv.map((a, t) => a + v[t]!));
  }
  return { advantages, returns };
}

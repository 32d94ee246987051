/**
 * Seeded randomness: the package never calls `Math.random`. Every random
 * choice takes an `Rng` built from a seed, and child seeds are derived by
 * hashing (seed, step, episode, …) so that runs are reproducible.
 *
 * @module
 */

/** A seeded pseudo-random generator. */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** The seed this generator was created with. */
  readonly seed: number;
}

/**
 * Mixes integers into one 32-bit seed (a splitmix/murmur-style finaliser).
 *
 * ```text
 * h = fold(parts, (h, p) → fmix32(h ⊕ p · 0x9e3779b9))
 * ```
 *
 * Source: nanochat's `seed = hash((step, example_idx, sampling_step))`.
 * Reference: MurmurHash3 `fmix32`.
 *
 * @param parts Integers (step, episode, turn, …).
 * @returns An unsigned 32-bit integer.
 *
 * @example Different parts give different seeds; the same parts the same seed
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashSeed } from "./random.ts";
 *
 * assert.equal(hashSeed(1, 2, 3), hashSeed(1, 2, 3));
 * assert.notEqual(hashSeed(1, 2, 3), hashSeed(1, 3, 2));
 * ```
 */
export function hashSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ Math.imul((p | 0) ^ ((p / 4294967296) | 0), 0x9e3779b9), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/**
 * FNV-1a hash of a string (32-bit), to seed by content.
 *
 * Source: Fowler–Noll–Vo hash, variant 1a.
 *
 * @param text Any string.
 * @returns An unsigned 32-bit integer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashString } from "./random.ts";
 *
 * assert.equal(hashString("a"), 0xe40c292c);
 * ```
 */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A mulberry32 generator seeded with `seed`.
 *
 * ```text
 * s ← s + 0x6D2B79F5;  t = mix(s);  u = t / 2³²
 * ```
 *
 * Source: T. Ettinger, mulberry32 (public domain).
 * Reference: also used by tfjs-examples for deterministic shuffles.
 *
 * @param seed Any integer.
 * @returns A fresh generator.
 *
 * @example Same seed, same stream
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRng } from "./random.ts";
 *
 * const a = createRng(7);
 * const b = createRng(7);
 * assert.equal(a.next(), b.next());
 * assert.ok(a.int(10) >= 0 && a.int(10) < 10);
 * ```
 */
export function createRng(seed: number): Rng {
  let s = seed >>> 0;
  let spare: number | undefined;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (n: number) => Math.floor(next() * n),
    normal: () => {
      if (spare !== undefined) {
        const v = spare;
        spare = undefined;
        return v;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
  };
}

/**
 * Fisher–Yates shuffle into a new array.
 *
 * Source: Knuth, TAOCP vol. 2, Algorithm 3.4.2 P.
 *
 * @param items The items.
 * @param rng The generator.
 * @returns A shuffled copy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRng, shuffled } from "./random.ts";
 *
 * assert.deepEqual(shuffled([1, 2, 3, 4], createRng(1)).sort(), [1, 2, 3, 4]);
 * ```
 */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

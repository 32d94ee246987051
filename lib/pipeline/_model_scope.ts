/**
 * One owner for what a stage of the pipeline allocates: the models and
 * optimizers it keeps are freed once, together, when the scope is disposed
 * (in a `finally`), whichever way the stage ends. A model lives in exactly
 * one scope: the run's (the SFT and RL policies, which the later stages read)
 * or a stage's own (its reference, critic and optimizers).
 *
 * @module
 */

/** What a scope frees: a model, an optimizer. */
export interface Owned {
  dispose(): void;
}

/** A set of owned things, freed together. */
export interface ModelScope {
  /** Takes ownership of `x` and returns it. */
  keep<T extends Owned>(x: T): T;
  /** Frees everything kept, last kept first; the scope is empty after. */
  dispose(): void;
}

/** A new, empty scope. */
export function modelScope(): ModelScope {
  const kept: Owned[] = [];
  return {
    keep(x) {
      kept.push(x);
      return x;
    },
    dispose() {
      for (const x of kept.splice(0).reverse()) x.dispose();
    },
  };
}

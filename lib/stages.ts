/**
 * The stages of a run before RL, as metrics.jsonl names their rows.
 *
 * @module
 */

/** The warm-ups before SFT, in order: induction (copying random word sequences), then recall (a fact by its pair). */
export const WARMUP_STAGES = ["pretrain", "recall"] as const;

/** The stages that train an SFT policy: the warm-ups, then SFT on the demonstrations (a release keeps their rows). */
export const SFT_STAGES: readonly string[] = [...WARMUP_STAGES, "sft"];

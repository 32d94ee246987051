/**
 * What a policy predicts at each question of a recall sequence
 * (`lib/train/recall_task.ts`): the fact asked (the pair read), the subject's
 * other fact (a read by the subject alone), another subject's fact of the
 * same relation (a read by the relation alone), or any other word.
 *
 * @module
 */
import type { LmSequence } from "../../lib/train/collate.ts";

/** The outcomes, in the order a prediction is tested against them. */
export const RECALL_OUTCOMES = [
  "the fact asked",
  "the subject's other fact",
  "the relation's other subject",
  "other word",
] as const;

/** One of {@linkcode RECALL_OUTCOMES}. */
export type RecallOutcome = (typeof RECALL_OUTCOMES)[number];

/**
 * Sorts the prediction at each question's object of one recall sequence.
 *
 * ```text
 * facts  <|user|> s r o . s r o . … <|end|>     (a fact every 4 tokens from position 1)
 * a question's object at i (lossMask 1): subject tokens[i−2], relation tokens[i−1]
 * predicted[i] = tokens[i] → the fact asked; else the first of the others whose fact holds it
 * ```
 *
 * Source: this package (the recall warm-up's probe, `research/recall_probe.ts`).
 *
 * @param sequence A recall sequence (`recallTaskSequences`).
 * @param predicted The policy's prediction at each position (`predicted[i]` for `tokens[i]`).
 * @param end The `<|end|>` token id, which closes the facts.
 * @returns One outcome per question, in order.
 * @throws {RangeError} When `predicted` is shorter than the sequence or `end` is not in it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recallOutcomes } from "./recall_outcomes.ts";
 *
 * // <|user|>=0 s1=1 ra=2 o1=3 .=4 s1 rb=5 o2=6 . <|end|>=9 then the question s1 rb ?
 * const tokens = [0, 1, 2, 3, 4, 1, 5, 6, 4, 9, 1, 5, 6];
 * const lossMask = tokens.map((_, i) => (i === 12 ? 1 : 0));
 * const predicted = tokens.map((t, i) => (i === 12 ? 3 : t));
 * assert.deepEqual(recallOutcomes({ tokens, lossMask }, predicted, 9), ["the subject's other fact"]);
 * ```
 */
export function recallOutcomes(
  sequence: Pick<LmSequence, "tokens" | "lossMask">,
  predicted: ArrayLike<number>,
  end: number,
): RecallOutcome[] {
  const { tokens, lossMask } = sequence;
  if (predicted.length < tokens.length) {
    throw new RangeError(`predicted has ${predicted.length} positions, the sequence ${tokens.length}`);
  }
  const close = tokens.indexOf(end);
  if (close < 0) throw new RangeError(`the end token ${end} is not in the sequence`);
  const facts: number[][] = [];
  for (let i = 1; i + 2 < close; i += 4) facts.push(tokens.slice(i, i + 3));
  const outcomes: RecallOutcome[] = [];
  lossMask.forEach((m, i) => {
    if (m !== 1) return;
    const [subject, relation, got] = [tokens[i - 2], tokens[i - 1], predicted[i]];
    if (got === tokens[i]) outcomes.push("the fact asked");
    else if (facts.some(([s, r, o]) => s === subject && r !== relation && o === got)) {
      outcomes.push("the subject's other fact");
    } else if (facts.some(([s, r, o]) => s !== subject && r === relation && o === got)) {
      outcomes.push("the relation's other subject");
    } else outcomes.push("other word");
  });
  return outcomes;
}

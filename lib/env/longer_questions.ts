/**
 * Questions made longer without more work: a question's text after other
 * objectives' text (which the scripted teacher, reading only the
 * question's own sub-questions, never resolves) or by the same words with no
 * `;` or `?` (filler that names no objective). The teacher's turns are those
 * of the question as it was, so a probe that scores the policy on them asks
 * whether a lookup in the question fails because the question is longer
 * than any trained on, or because it holds more objectives.
 *
 * @module
 */
import { indexedQuestion, splitIndexedQuestion, type SubQuestion } from "./questions.ts";

/** How {@linkcode lengthenQuestion} lengthens: more objectives' text, or the same words as filler. */
export const LENGTHENINGS = ["objectives", "filler"] as const;

/** One of {@linkcode LENGTHENINGS}. */
export type Lengthening = typeof LENGTHENINGS[number];

/**
 * A question with words added before its text (its subject index, if any,
 * kept where it is, so the text still ends with `?` next to an index at the
 * end).
 *
 * ```text
 * objectives:  e₁ ; … ; e_m ; text        (eⱼ: the extra objectives' text)
 * filler:      w₁ … w_r text              (the same words less every ; and ?)
 * ```
 *
 * Source: this package.
 *
 * @param question The question.
 * @param subjects Its subjects, in order (to find its subject index).
 * @param extra Objectives of another question whose text is added.
 * @param how What is added.
 * @returns The longer question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lengthenQuestion } from "./longer_questions.ts";
 *
 * const extra = [{ text: "kata was directed by whom ?", subject: "kata", answer: "olvan", hops: [] }];
 * const q = "zorbex : zorbex was born in which city ?";
 * assert.equal(lengthenQuestion(q, ["zorbex"], extra, "objectives"), "zorbex : kata was directed by whom ? ; zorbex was born in which city ?");
 * assert.equal(lengthenQuestion(q, ["zorbex"], extra, "filler"), "zorbex : kata was directed by whom zorbex was born in which city ?");
 * assert.equal(lengthenQuestion("zorbex was born in which city ? : zorbex", ["zorbex"], extra, "filler"), "kata was directed by whom zorbex was born in which city ? : zorbex");
 * ```
 */
export function lengthenQuestion(
  question: string,
  subjects: readonly string[],
  extra: readonly SubQuestion[],
  how: Lengthening,
): string {
  if (!LENGTHENINGS.includes(how)) {
    throw new RangeError(
      `Cannot lengthen a question: how must be one of ${LENGTHENINGS.join(", ")}, current value is ${
        JSON.stringify(how)
      }`,
    );
  }
  const added = how === "objectives" ? extra.flatMap((q) => [...q.text.split(" "), ";"]) : fillerWords(extra);
  return wordsBefore(question, subjects, added);
}

/**
 * The filler of some objectives: their words less every `;` and `?`.
 *
 * Source: this package.
 *
 * @param extra The objectives.
 * @returns Their words, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fillerWords } from "./longer_questions.ts";
 *
 * assert.deepEqual(fillerWords([{ text: "kata was directed by whom ?", subject: "kata", answer: "olvan", hops: [] }]), ["kata", "was", "directed", "by", "whom"]);
 * ```
 */
export function fillerWords(extra: readonly SubQuestion[]): string[] {
  return extra.flatMap((q) => q.text.split(" ")).filter((w) => w !== ";" && w !== "?");
}

/**
 * A question with words put before its text, its subject index (if any)
 * kept where it is.
 *
 * Source: this package.
 *
 * @param question The question.
 * @param subjects Its subjects, in order (to find its subject index).
 * @param words The words.
 * @returns The longer question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wordsBefore } from "./longer_questions.ts";
 *
 * assert.equal(wordsBefore("zorbex : zorbex was born ?", ["zorbex"], ["zz", "yy"]), "zorbex : zz yy zorbex was born ?");
 * assert.equal(wordsBefore("zorbex was born ? : zorbex", ["zorbex"], []), "zorbex was born ? : zorbex");
 * ```
 */
export function wordsBefore(question: string, subjects: readonly string[], words: readonly string[]): string {
  const split = splitIndexedQuestion(question, subjects);
  const text = split?.text ?? question;
  const longer = words.length === 0 ? text : `${words.join(" ")} ${text}`;
  return split === undefined ? longer : indexedQuestion(longer, subjects, split.place);
}

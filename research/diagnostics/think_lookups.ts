/**
 * What the think of a chain memory's turn has to find, word by word, and
 * what the policy writes instead: on the scripted teacher's turns (questions
 * with a subject index, `data.subjectIndex`: `zorbex vunom : zorbex was born
 * … ; vunom was founded …`), teacher-forced, each think word is sorted by
 * the lookup it needs:
 *
 * - `next subject`: the objective after the one just finished (the first
 *   turn's: the first), the name after that subject in the question's index;
 * - `subject copied`: (`"state-chain-linked"` only) the subject just
 *   finished, the word after `|` in the memory;
 * - `relations`: the relations the next subject's part of the question asks
 *   for, the words after it in the think;
 * - `next hop`: the value read and the relation still to follow, both in the
 *   memory's chain;
 * - `answer`: the word that ends the plan after the last subject.
 *
 * A `next subject` or `answer` the policy gets wrong is sorted by what it
 * writes: `answer` (it ends the plan early), a subject before or after the
 * wanted one in the index (a wrong place in the list), or another word.
 *
 * @module
 */
import type { Tokenizer } from "../../lib/text/tokenizer.ts";
import type { Model } from "../../lib/model/params.ts";
import type { LmSequence } from "../../lib/train/collate.ts";
import { teacherForcedArgmax } from "./teacher_forced.ts";

/** The lookups of a chain memory's think, in the order they are reported. */
export const THINK_KINDS = ["next subject", "subject copied", "relations", "next hop", "answer"] as const;

/** One lookup of the think. */
export type ThinkKind = typeof THINK_KINDS[number];

/** What the policy writes where the think names the next subject or `answer`, in the order they are reported. */
export const SUBJECT_OUTCOMES = [
  "right",
  "answer (plan ended)",
  "an earlier subject",
  "a later subject",
  "other word",
] as const;

/** One of {@linkcode SUBJECT_OUTCOMES}. */
export type SubjectOutcome = typeof SUBJECT_OUTCOMES[number];

/**
 * The question's subject index of a sequence: the words of the first
 * `<|user|>` message before its `:`, or after it where the text comes
 * first (`data.subjectIndex: "end"`: the word before the `:` is the last
 * objective's `?`); empty when the question has none.
 *
 * Source: this package (`data.subjectIndex`'s question format).
 *
 * @param words The sequence's words.
 * @returns The subjects, in the question's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { subjectIndex } from "./think_lookups.ts";
 *
 * assert.deepEqual(subjectIndex(["<|system|>", "x", "<|end|>", "<|user|>", "zorbex", "vunom", ":", "zorbex", "was"]), ["zorbex", "vunom"]);
 * assert.deepEqual(subjectIndex(["<|user|>", "zorbex", "was", "born", "<|end|>"]), []);
 * assert.deepEqual(subjectIndex(["<|user|>", "zorbex", "born", "?", ":", "zorbex", "vunom", "<|end|>"]), ["zorbex", "vunom"]);
 * ```
 */
export function subjectIndex(words: readonly string[]): string[] {
  const user = words.indexOf("<|user|>");
  if (user < 0) return [];
  const end = words.findIndex((w, i) => i > user && w.startsWith("<"));
  const message = words.slice(user + 1, end < 0 ? words.length : end);
  const colon = message.indexOf(":");
  if (colon < 0) return [];
  // `data.subjectIndex: "end"`: the text ends with `?`, the index follows the `:`
  return message[colon - 1] === "?" ? message.slice(colon + 1) : message.slice(0, colon);
}

/**
 * Labels the learned think words of teacher turns by {@linkcode THINK_KINDS}
 * (a sequence whose question has no subject index gets none).
 *
 * Source: this package (the think of `chainTeacherTurn`).
 *
 * @param tokenizer The tokenizer.
 * @param sequence A teacher turn sequence (context, then the turn with loss mask 1).
 * @returns `[position, kind]` pairs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { thinkPositions } from "./think_lookups.ts";
 *
 * const tok = buildTokenizer(["zorbex vunom : born founder olvan kalmar answer |"]);
 * const at = (context: string, turn: string) => {
 *   const ids = encode(tok, `${context} ${turn}`).ids;
 *   const n = encode(tok, context).ids.length;
 *   return thinkPositions(tok, { tokens: ids, lossMask: ids.map((_, i) => (i >= n ? 1 : 0)) }).map(([, k]) => k);
 * };
 * const q = "<|user|> zorbex vunom : zorbex born ; vunom founder born <|end|> <|assistant|> <mem>";
 * assert.deepEqual(at(q, "| zorbex born kalmar </mem> <think> vunom founder born </think>"), ["next subject", "relations", "relations"]);
 * assert.deepEqual(at(q, "kalmar | vunom founder olvan born </mem> <think> olvan born </think>"), ["next hop", "next hop"]);
 * assert.deepEqual(at(q, "kalmar | vunom founder olvan born kalmar </mem> <think> vunom answer </think>"), ["subject copied", "answer"]);
 * ```
 */
export function thinkPositions(tokenizer: Tokenizer, sequence: LmSequence): [number, ThinkKind][] {
  const words = sequence.tokens.map((id) => tokenizer.tokens[id] ?? "");
  const index = new Set(subjectIndex(words));
  if (index.size === 0) return [];
  const out: [number, ThinkKind][] = [];
  for (let open = 0; open < words.length; open++) {
    if (words[open] !== "<think>" || sequence.lossMask[open + 1] !== 1) continue;
    let end = open + 1;
    while (end < words.length && words[end] !== "</think>" && sequence.lossMask[end] === 1) end++;
    const think = words.slice(open + 1, end);
    // the think's last subject (before its relations) is the one it looks up; before `answer`, each is a copy
    const named = think.includes("answer") ? think.length : think.findLastIndex((w) => index.has(w));
    think.forEach((w, j) => {
      const kind: ThinkKind = w === "answer"
        ? "answer"
        : named < 0
        ? "next hop"
        : j < named
        ? "subject copied"
        : j === named
        ? "next subject"
        : "relations";
      out.push([open + 1 + j, kind]);
    });
  }
  return out;
}

/**
 * Sorts the policy's word where the teacher names the next subject or
 * `answer`, by the question's subject index.
 *
 * Source: this package.
 *
 * @param predicted The word predicted.
 * @param wanted The teacher's word (a subject of the index, or `answer`).
 * @param index The question's subjects, in order.
 * @returns The outcome.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { subjectOutcome } from "./think_lookups.ts";
 *
 * const index = ["zorbex", "vunom", "kata"];
 * assert.equal(subjectOutcome("vunom", "vunom", index), "right");
 * assert.equal(subjectOutcome("answer", "vunom", index), "answer (plan ended)");
 * assert.equal(subjectOutcome("zorbex", "vunom", index), "an earlier subject");
 * assert.equal(subjectOutcome("kata", "vunom", index), "a later subject");
 * assert.equal(subjectOutcome("kata", "answer", index), "an earlier subject");
 * assert.equal(subjectOutcome("born", "vunom", index), "other word");
 * ```
 */
export function subjectOutcome(predicted: string, wanted: string, index: readonly string[]): SubjectOutcome {
  if (predicted === wanted) return "right";
  if (predicted === "answer") return "answer (plan ended)";
  const at = index.indexOf(predicted);
  if (at < 0) return "other word";
  // `answer` comes after every subject
  const want = wanted === "answer" ? index.length : index.indexOf(wanted);
  return at < want ? "an earlier subject" : "a later subject";
}

/** One think word scored ({@linkcode thinkRecords}). */
export interface ThinkRecord {
  /** The lookup it needs. */
  kind: ThinkKind;
  /** Whether the policy predicts the teacher's word. */
  right: boolean;
  /** For `next subject` and `answer`: what the policy writes there ({@linkcode subjectOutcome}). */
  outcome?: SubjectOutcome;
  /** How many subjects the question's index holds. */
  subjects: number;
  /**
   * For `next subject` and `answer`: the wanted word's place in the index, 1-based (`answer`: one past the last
   * subject), so a lookup's accuracy can be read per place.
   */
  slot?: number;
}

/**
 * Scores every think word of the sequences ({@linkcode thinkPositions}),
 * teacher-forced, in one pass.
 *
 * Source: this package.
 *
 * @param model The policy.
 * @param tokenizer The tokenizer.
 * @param sequences Teacher turns (chain memory, questions with a subject index).
 * @returns One record per think word, in sequence order.
 *
 * @example A random tiny model: every think word is scored once
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { thinkRecords } from "./think_lookups.ts";
 *
 * const tok = buildTokenizer(["zorbex vunom : born founder olvan kalmar answer |"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const context = "<|user|> zorbex vunom : zorbex born ; vunom founder born <|end|> <|assistant|> <mem>";
 * const ids = encode(tok, `${context} | zorbex born kalmar </mem> <think> vunom founder born </think>`).ids;
 * const n = encode(tok, context).ids.length;
 * const records = await thinkRecords(model, tok, [{ tokens: ids, lossMask: ids.map((_, i) => (i >= n ? 1 : 0)) }]);
 * assert.deepEqual(records.map((r) => [r.kind, r.subjects, r.slot]), [["next subject", 2, 2], ["relations", 2, undefined], ["relations", 2, undefined]]);
 * assert.equal(records[0]!.outcome === "right", records[0]!.right);
 * model.dispose();
 * ```
 */
export async function thinkRecords(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
): Promise<ThinkRecord[]> {
  const items = sequences.map((s) => ({ s, at: thinkPositions(tokenizer, s) })).filter((x) => x.at.length > 0);
  const predicted = await teacherForcedArgmax(model, tokenizer, items.map((x) => x.s));
  const out: ThinkRecord[] = [];
  items.forEach(({ s, at }, n) => {
    const words = s.tokens.map((id) => tokenizer.tokens[id] ?? "");
    const index = subjectIndex(words);
    for (const [i, kind] of at) {
      const got = tokenizer.tokens[predicted[n]![i]!] ?? "";
      const looksUp = kind === "next subject" || kind === "answer";
      out.push({
        kind,
        right: got === words[i],
        ...(looksUp ? { outcome: subjectOutcome(got, words[i]!, index) } : {}),
        subjects: index.length,
        ...(looksUp ? { slot: kind === "answer" ? index.length + 1 : index.indexOf(words[i]!) + 1 } : {}),
      });
    }
  });
  return out;
}

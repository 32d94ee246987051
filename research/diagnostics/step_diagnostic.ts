/**
 * Does the policy learn each step of the state memory's per-turn operation?
 * Teacher-forced accuracy on the scripted teacher's turns, each learned token
 * labelled by the step it belongs to: the open objectives taken from the
 * question (first turn), carried from the previous memory, or the one
 * rewritten after a first hop; the answers carried or appended (the read),
 * or appended where the results just read also give the decoy (the memory
 * decision: the person's other city, which the cold-start teacher keeps
 * instead at `sft.dropProbability`); the think, the search and the final
 * answer.
 *
 * @module
 */
import type { Tokenizer } from "../../lib/text/tokenizer.ts";
import { parseStateMemory, type StateMemory } from "../../lib/env/teacher.ts";
import { DECOY_RELATION, type Relation } from "../../lib/env/world.ts";
import type { Model } from "../../lib/model/params.ts";
import type { LmSequence } from "../../lib/train/collate.ts";
import { type Hits, teacherForcedHits } from "./teacher_forced.ts";

/** The steps of a state-memory turn, in the order they are reported. */
export const STEP_KINDS = [
  "open from question",
  "open carried",
  "open next hop",
  "answers carried",
  "answer appended",
  "memory decision",
  "separators",
  "think",
  "search",
  "final answer",
] as const;

/** One step of the operation. */
export type StepKind = typeof STEP_KINDS[number];

/** Accuracy of one step kind. */
export interface StepAccuracy {
  /** The step. */
  step: StepKind;
  /** Tokens predicted right. */
  correct: number;
  /** Tokens scored. */
  total: number;
}

/**
 * Labels the learned tokens of one teacher turn (state memory format) by
 * step. The previous memory is the last complete `<mem> … </mem>` of the
 * context; on the first turn there is none, and every open objective comes
 * from the question. Tags are not labelled.
 *
 * Source: this package (the operation of `stateTeacherTurn`).
 *
 * @param tokenizer The tokenizer.
 * @param sequence A teacher turn sequence (context, then the turn with loss mask 1).
 * @returns `[position, step]` pairs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { stepPositions } from "./step_diagnostic.ts";
 *
 * const tok = buildTokenizer(["a b c born founder x ; |"]);
 * const context = "<mem> a born ; b founder | </mem> <information> a born x . </information> <mem>";
 * const turn = "b founder | x </mem> <think> b founder </think> <search> b founder </search>";
 * const ids = encode(tok, `${context} ${turn}`).ids;
 * const n = encode(tok, context).ids.length;
 * const labels = stepPositions(tok, { tokens: ids, lossMask: ids.map((_, i) => (i >= n ? 1 : 0)) });
 * assert.deepEqual(labels.map(([, s]) => s), [
 *   "open carried", "open carried", "separators", "answer appended", "think", "think", "search", "search",
 * ]);
 * // the results also give a's other city: appending x is the memory decision
 * const tok2 = buildTokenizer(["a born lives x y | ."]);
 * const read = "<mem> a born | </mem> <information> a born x . a lives y . </information> <mem>";
 * const ids2 = encode(tok2, `${read} | x </mem>`).ids;
 * const n2 = encode(tok2, read).ids.length;
 * const labels2 = stepPositions(tok2, { tokens: ids2, lossMask: ids2.map((_, i) => (i >= n2 ? 1 : 0)) });
 * assert.deepEqual(labels2.map(([, s]) => s), ["separators", "memory decision"]);
 * ```
 */
export function stepPositions(tokenizer: Tokenizer, sequence: LmSequence): [number, StepKind][] {
  const words = sequence.tokens.map((id) => tokenizer.tokens[id] ?? "");
  const out: [number, StepKind][] = [];
  // one learned span per turn (a full-history sequence packs several)
  for (let first = 0; first < words.length; first++) {
    if (sequence.lossMask[first] !== 1 || (first > 0 && sequence.lossMask[first - 1] === 1)) continue;
    let last = first;
    while (last + 1 < words.length && sequence.lossMask[last + 1] === 1) last++;
    labelTurn(words, first, last + 1, out);
  }
  return out;
}

/** Labels one turn's learned tokens `[first, end)`; the previous memory is the last one closed before `first`. */
function labelTurn(words: readonly string[], first: number, end: number, out: [number, StepKind][]): void {
  let previous: StateMemory | undefined;
  const close = words.lastIndexOf("</mem>", first - 1);
  if (close >= 0) {
    const open = words.lastIndexOf("<mem>", close);
    if (open >= 0) previous = parseStateMemory(words.slice(open + 1, close));
  }
  const closeMem = words.indexOf("</mem>", first);
  const memEnd = closeMem < 0 || closeMem >= end ? end : closeMem;
  const current = parseStateMemory(words.slice(first, memEnd));
  labelMemory(words, first, memEnd, previous, current, decisionWords(words, first), out);
  // think, search, final answer: their contents
  let tag: string | undefined;
  for (let i = memEnd + 1; i < end; i++) {
    const w = words[i]!;
    if (/^<\/?(think|search|answer)>$/.test(w)) {
      tag = w.startsWith("</") ? undefined : w.slice(1, -1);
      continue;
    }
    if (tag === "think") out.push([i, "think"]);
    else if (tag === "search") out.push([i, "search"]);
    else if (tag === "answer") out.push([i, "final answer"]);
  }
}

/**
 * The documents of the last results read before `first` (the last `<information>` block; a document starts at `[`),
 * each as its facts `[s, r, o]`: each sentence's last three words, after any `[ doc N ]` marker.
 *
 * Source: this package (the corpus' sentences, `buildCorpus`; the search tool's results, `formatInformation`).
 *
 * @param words A sequence's words.
 * @param first The position the results precede.
 * @returns One list of facts per document, in reading order ([] where no results precede `first`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resultDocuments } from "./step_diagnostic.ts";
 *
 * const words = "<information> [ doc 1 ] a born x . a lives y . [ doc 2 ] b director a . </information> <mem>".split(" ");
 * assert.deepEqual(resultDocuments(words, words.length), [[["a", "born", "x"], ["a", "lives", "y"]], [["b", "director", "a"]]]);
 * assert.deepEqual(resultDocuments(words, 0), []);
 * assert.deepEqual(resultDocuments(words, 3), []); // the block starts before 3, its first fact ends after
 * ```
 */
export function resultDocuments(words: readonly string[], first: number): string[][][] {
  if (first <= 0) return [];
  const open = words.lastIndexOf("<information>", first - 1);
  if (open < 0) return [];
  const close = words.indexOf("</information>", open);
  const docs: string[][][] = [];
  let sentence: string[] = [];
  for (const w of words.slice(open + 1, close < 0 || close > first ? first : close)) {
    if (w === "[" || docs.length === 0) {
      docs.push([]);
      sentence = [];
    }
    if (w !== ".") {
      sentence.push(w);
      continue;
    }
    if (sentence.length >= 3) docs.at(-1)!.push(sentence.slice(-3));
    sentence = [];
  }
  return docs.filter((d) => d.length > 0);
}

/**
 * The objects of the facts of the last results read before `first` whose subject they also give the decoy relation
 * of ({@linkcode DECOY_RELATION}: born and lives): the words an appended answer is a memory decision between.
 */
function decisionWords(words: readonly string[], first: number): Set<string> {
  const facts = resultDocuments(words, first).flat();
  const out = new Set<string>();
  for (const [s, r, o] of facts) {
    const other = DECOY_RELATION[r as Relation];
    if (other !== undefined && facts.some((f) => f[0] === s && f[1] === other)) out.add(o!);
  }
  return out;
}

/** The memory's words: the open items, then the answers (`"state-relations"`, with or without `;`). */
function labelMemory(
  words: readonly string[],
  first: number,
  memEnd: number,
  previous: StateMemory | undefined,
  current: StateMemory,
  decisions: ReadonlySet<string>,
  out: [number, StepKind][],
): void {
  // the head (the first open item) was rewritten (a first hop read) when the open list kept its length; a pop
  // shortens it and appends the head's answer
  const rewritten = previous !== undefined && previous.open.length > 0 &&
    current.open.length === previous.open.length;
  const fresh = current.answers.length - (previous?.answers.length ?? 0);
  // walk the memory's words in parseStateMemory's reading: `;` and `|` are separators
  let i = first;
  const separators = () => {
    while (i < memEnd && (words[i] === ";" || words[i] === "|")) out.push([i++, "separators"]);
  };
  const openItems = () =>
    current.open.forEach((item, j) => {
      const step: StepKind = previous === undefined
        ? "open from question"
        : j === 0 && rewritten
        ? "open next hop"
        : "open carried";
      for (let n = 0; n < item.length; n++, i++) {
        separators();
        out.push([i, step]);
      }
    });
  const answers = () =>
    current.answers.forEach((_, j) => {
      const appended = previous === undefined || j >= current.answers.length - fresh;
      separators();
      const step = !appended ? "answers carried" : decisions.has(words[i]!) ? "memory decision" : "answer appended";
      out.push([i++, step]);
    });
  openItems();
  answers();
  separators();
}

/**
 * Teacher-forced greedy accuracy per step of the state memory's operation.
 *
 * ```text
 * acc(step) = #{ i labelled step : argmax p(· | x_<i) = x_i } / #{ i labelled step }
 * ```
 *
 * Source: this package; see {@linkcode stepPositions}.
 *
 * @param model The policy.
 * @param tokenizer The tokenizer.
 * @param sequences Teacher turns (state memory format).
 * @returns One entry per step present, in {@linkcode STEP_KINDS} order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { stepAccuracy } from "./step_diagnostic.ts";
 *
 * const tok = buildTokenizer(["a born |"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const ids = encode(tok, "<mem> a born | </mem>").ids;
 * const cells = await stepAccuracy(model, tok, [{ tokens: ids, lossMask: ids.map((_, i) => (i >= 1 ? 1 : 0)) }]);
 * assert.deepEqual(cells.map((c) => [c.step, c.total]), [["open from question", 2], ["separators", 1]]);
 * model.dispose();
 * ```
 */
export async function stepAccuracy(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
): Promise<StepAccuracy[]> {
  const hits = await teacherForcedHits(
    model,
    tokenizer,
    sequences.map((s) => ({ s, keys: stepPositions(tokenizer, s) })),
  );
  return stepCells(hits);
}

/**
 * Hits keyed by step ({@linkcode stepPositions}' labels) as accuracy cells,
 * one per step present, in {@linkcode STEP_KINDS} order.
 *
 * Source: this package; see {@linkcode stepAccuracy}.
 *
 * @param hits Teacher-forced hits per step (`teacherForcedHits` over `stepPositions`).
 * @returns The cells.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stepCells } from "./step_diagnostic.ts";
 *
 * const hits = new Map([["think", { correct: 1, total: 2 }], ["open carried", { correct: 3, total: 3 }]]);
 * assert.deepEqual(stepCells(hits), [{ step: "open carried", correct: 3, total: 3 }, { step: "think", correct: 1, total: 2 }]);
 * ```
 */
export function stepCells(hits: ReadonlyMap<string, Hits>): StepAccuracy[] {
  return STEP_KINDS.filter((k) => hits.has(k)).map((step) => ({ step, ...hits.get(step)! }));
}

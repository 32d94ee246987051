/**
 * What the policy writes instead of a carried or an appended answer: on the
 * scripted teacher's turns, teacher-forced, each position where the memory
 * copies an answer of the previous memory (`"answers carried"` in
 * {@linkcode stepPositions}), or appends the one just found (`"answer
 * appended"`), is sorted by the word the policy predicts there. An induction
 * head that copies the list predicts the right word; a policy that has
 * learned the list's length from short training lists ends it too early
 * (`|`); one that loses its place writes another answer of the list, or a
 * word of the objective in progress; one that copies the list and misses the
 * edit ends it where the new answer goes; one that reads the wrong fact
 * writes another word of the document that holds the answer (its subject)
 * or a word of another document of the results (the subject's other fact,
 * the decoy, among them).
 *
 * @module
 */
import type { Tokenizer } from "../../lib/text/tokenizer.ts";
import { parseStateMemory } from "../../lib/env/teacher.ts";
import type { Model } from "../../lib/model/params.ts";
import type { LmSequence } from "../../lib/train/collate.ts";
import { resultDocuments, stepPositions } from "./step_diagnostic.ts";
import { teacherForcedArgmaxes } from "./teacher_forced.ts";

/** What the policy predicts at a carried answer, in the order they are reported. */
export const CARRY_OUTCOMES = [
  "right",
  "list ended (|)",
  "separator (;)",
  "answer earlier in the list",
  "answer later in the list",
  "word of an open objective",
  "other word of the answer's document",
  "word of another result",
  "other word of the context",
  "word not in the context",
] as const;

/** One outcome of {@linkcode CARRY_OUTCOMES}. */
export type CarryOutcome = typeof CARRY_OUTCOMES[number];

/**
 * Sorts one prediction at a carried answer: `predicted` where the previous
 * memory (parsed) asked for `wanted`, with `context` the words before the
 * position.
 *
 * Source: this package.
 *
 * @param predicted The word predicted.
 * @param wanted The teacher's word.
 * @param previous The previous memory's open items and answers.
 * @param context The words before the position (the results just read: its last `<information>` block, whose
 *   documents each start with `[`; a document's words are its facts' subjects and objects).
 * @returns The outcome.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { carryOutcome } from "./carry_errors.ts";
 *
 * const previous = { open: [["olvan", "born"]], answers: ["kalmar", "tesla", "brubrar"] };
 * const context = [
 *   ...["<mem>", "olvan", "born", "|", "kalmar", "tesla", "brubrar", "</mem>", "x"],
 *   ...["<information>", "[", "doc", "1", "]", "tesla", "located", "zuvi", "."],
 *   ...["[", "doc", "2", "]", "olvan", "born", "tesla", ".", "olvan", "lives", "tizel", "."],
 *   ...["</information>", "<mem>", "|", "kalmar"],
 * ];
 * assert.equal(carryOutcome("tesla", "tesla", previous, context), "right");
 * assert.equal(carryOutcome("|", "tesla", previous, context), "list ended (|)");
 * assert.equal(carryOutcome("brubrar", "tesla", previous, context), "answer later in the list");
 * assert.equal(carryOutcome("kalmar", "tesla", previous, context), "answer earlier in the list");
 * assert.equal(carryOutcome("olvan", "tesla", previous, context), "word of an open objective");
 * assert.equal(carryOutcome("tizel", "tesla", previous, context), "other word of the answer's document");
 * // the answer's document is the one whose fact has it as object (doc 2), not the first that names it
 * assert.equal(carryOutcome("zuvi", "tesla", previous, context), "word of another result");
 * assert.equal(carryOutcome(".", "tesla", previous, context), "other word of the context");
 * assert.equal(carryOutcome("x", "tesla", previous, context), "other word of the context");
 * assert.equal(carryOutcome("zorbex", "tesla", previous, context), "word not in the context");
 * assert.equal(carryOutcome("brubrar", "olvan", previous, context), "answer earlier in the list"); // an appended answer
 * ```
 */
export function carryOutcome(
  predicted: string,
  wanted: string,
  previous: { open: readonly (readonly string[])[]; answers: readonly string[] },
  context: readonly string[],
): CarryOutcome {
  if (predicted === wanted) return "right";
  if (predicted === "|") return "list ended (|)";
  if (predicted === ";") return "separator (;)";
  // an appended answer is in no list before it: every answer of the list is earlier
  const at = previous.answers.indexOf(predicted);
  const want = previous.answers.indexOf(wanted);
  if (at >= 0) return at < want || want < 0 ? "answer earlier in the list" : "answer later in the list";
  if (previous.open.some((item) => item.includes(predicted))) return "word of an open objective";
  // the answer's document: the one of the last results with a fact whose object is the wanted word
  const docs = resultDocuments(context, context.length);
  const own = answerFact(docs, wanted)?.doc;
  const named = (d: readonly string[][]) => d.some((f) => f[0] === predicted || f[2] === predicted);
  if (own !== undefined && named(own)) return "other word of the answer's document";
  if (docs.some((d) => d !== own && named(d))) return "word of another result";
  return context.includes(predicted) ? "other word of the context" : "word not in the context";
}

/** The first fact of `docs` whose object is `wanted`, with its document (undefined where none has it). */
function answerFact(
  docs: readonly string[][][],
  wanted: string,
): { doc: readonly string[][]; fact: readonly string[] } | undefined {
  for (const doc of docs) {
    const fact = doc.find((f) => f[2] === wanted);
    if (fact !== undefined) return { doc, fact };
  }
  return undefined;
}

/** The relation of the answer's fact in `docs` ({@linkcode answerFact}); `""` where no document has it. */
function readRelation(docs: readonly string[][][], wanted: string): string {
  return answerFact(docs, wanted)?.fact[1] ?? "";
}

/**
 * The memory steps {@linkcode carryRecords} sorts: the answers copied, the one appended (a last hop's read; the
 * memory decision where its results also give the decoy), and the entity that opens the rewritten head objective
 * after a first hop (`"open next hop"`'s first word: a first hop's read).
 */
export type CarryStep = "answers carried" | "answer appended" | "memory decision" | "next hop read";

/** One carried or appended answer, sorted ({@linkcode carryRecords}). */
export interface CarryRecord {
  /** Which: a carried answer or the appended one. */
  step: CarryStep;
  /** What the policy predicts there. */
  outcome: CarryOutcome;
  /** How many answers the previous memory carries (the list the position copies or extends). */
  listLength: number;
  /**
   * The relation of the last results' fact whose object is the teacher's word (`""` where there is none): the
   * relation the read had to pick. Meant for the reads (the appended answer, the next hop's entity): a carried answer
   * has one only where the last results happen to state it again. (How many facts that document stated of its subject,
   * and in which place, left with the documents of two facts; commit 5dc89be has them.)
   */
  relation: string;
  /**
   * Whether the policy's best word other than `|` is the teacher's: right wherever it does not end the list
   * (false where the vocabulary has no `|`).
   */
  rightWithoutEnd: boolean;
}

/**
 * Sorts every carried and every appended answer of the sequences (state
 * memory turns, memory context) by {@linkcode carryOutcome}, with the length
 * of the list it belongs to, and whether the word the policy ranks first
 * once `|` is ruled out is right (a second pass): where it ends the list, is
 * the word it would have written instead the right one? Where it always is,
 * the policy knows the answer and only the choice to write one fails (the
 * choice a teacher that drops answers, `sft.dropProbability`, teaches).
 *
 * Source: this package.
 *
 * @param model The policy.
 * @param tokenizer The tokenizer.
 * @param sequences Teacher turns (state memory format).
 * @returns One record per position, in sequence order.
 *
 * @example An appended answer after a list of two
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { carryRecords } from "./carry_errors.ts";
 *
 * const tok = buildTokenizer(["a b c x born | ."]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const context = "<mem> x born | a b </mem> <information> x born c . </information> <mem>";
 * const ids = encode(tok, `${context} | a b c </mem>`).ids;
 * const n = encode(tok, context).ids.length;
 * const seq = { tokens: ids, lossMask: ids.map((_, i) => (i >= n ? 1 : 0)) };
 * const records = await carryRecords(model, tok, [seq]);
 * assert.deepEqual(records.map((r) => [r.step, r.listLength]), [["answers carried", 2], ["answers carried", 2], ["answer appended", 2]]);
 * // c is read from a fact of the results; a and b are in no document of them
 * assert.deepEqual(records.map((r) => r.relation), ["", "", "born"]);
 * // ruling out `|` changes nothing where the policy did not write it
 * for (const r of records) if (r.outcome === "right") assert.ok(r.rightWithoutEnd);
 * model.dispose();
 * ```
 */
export async function carryRecords(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
): Promise<CarryRecord[]> {
  // the carried and appended answers, and the first word of each rewritten head (the entity a first hop read)
  const sorted = (s: LmSequence): [number, CarryStep][] =>
    stepPositions(tokenizer, s).flatMap(([i, step], k, all): [number, CarryStep][] => {
      if (step === "answers carried" || step === "answer appended" || step === "memory decision") return [[i, step]];
      const first = step === "open next hop" && (k === 0 || all[k - 1]![1] !== "open next hop");
      return first ? [[i, "next hop read"]] : [];
    });
  const items = sequences.map((s) => ({ s, at: sorted(s) })).filter((x) => x.at.length > 0);
  // what it writes, and what it writes once `|` is ruled out: one pass
  const end = tokenizer.vocab.get("|");
  const [predicted, unlessEnded] = await teacherForcedArgmaxes(
    model,
    tokenizer,
    items.map((x) => x.s),
    end === undefined ? [[]] : [[], [end]],
  );
  const out: CarryRecord[] = [];
  items.forEach(({ s, at }, n) => {
    const words = s.tokens.map((id) => tokenizer.tokens[id] ?? "");
    for (const [i, step] of at) {
      // the previous memory: the last one closed before this turn's memory
      const close = words.lastIndexOf("</mem>", i);
      const open = words.lastIndexOf("<mem>", close);
      const previous = parseStateMemory(words.slice(open + 1, close));
      const got = tokenizer.tokens[predicted![n]![i]!] ?? "";
      out.push({
        step,
        outcome: carryOutcome(got, words[i]!, previous, words.slice(0, i)),
        listLength: previous.answers.length,
        relation: readRelation(resultDocuments(words, i), words[i]!),
        rightWithoutEnd: unlessEnded !== undefined && unlessEnded[n]![i] === s.tokens[i],
      });
    }
  });
  return out;
}

/**
 * Counts {@linkcode carryRecords}' outcomes at one step (the carried
 * answers, or the appended ones).
 *
 * Source: this package.
 *
 * @param model The policy.
 * @param tokenizer The tokenizer.
 * @param sequences Teacher turns (state memory format).
 * @param options The step counted. @default { step: "answers carried" }
 * @returns Positions per outcome, every outcome present (0 where none).
 *
 * @example A random tiny model rarely copies: every carried answer is counted once
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { carryErrors } from "./carry_errors.ts";
 *
 * const tok = buildTokenizer(["a b c x born |"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const context = "<mem> x born | a b </mem> <information> x born c . </information> <mem>";
 * const ids = encode(tok, `${context} | a b c </mem>`).ids;
 * const n = encode(tok, context).ids.length;
 * const counts = await carryErrors(model, tok, [{ tokens: ids, lossMask: ids.map((_, i) => (i >= n ? 1 : 0)) }]);
 * assert.equal(Object.values(counts).reduce((a, b) => a + b, 0), 2); // a and b are carried; c is appended
 * model.dispose();
 * ```
 */
export async function carryErrors(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
  options: { step?: CarryStep } = {},
): Promise<Record<CarryOutcome, number>> {
  const step = options.step ?? "answers carried";
  const counts = Object.fromEntries(CARRY_OUTCOMES.map((o) => [o, 0])) as Record<CarryOutcome, number>;
  for (const r of await carryRecords(model, tokenizer, sequences)) if (r.step === step) counts[r.outcome] += 1;
  return counts;
}

/**
 * A scripted teacher that writes demonstrations in the exact turn format:
 * one search per hop, then the answer from memory. Its memory is either the
 * agent's whole state (`memory: "state-relations"`, the default, or
 * `"state"`: the objectives still open, then the answers found, so every
 * turn does the same work whatever the number of objectives; or
 * `"state-stack"`: the answers, then the objectives still open with the one
 * being resolved last, next to `</mem>`) or numbered
 * slots of the facts read (`memory: "slots"`, the earlier format). With `dropProbability > 0` it
 * forgets earlier answers (default 0.3), so an SFT policy imitating it leaves
 * room for MemPO's memory advantage.
 *
 * @module
 */
import { createRng, hashSeed, hashString } from "../random.ts";
import { encode, type Tokenizer } from "../text/tokenizer.ts";
import type { AgentPolicy, TurnOutput, TurnRequest } from "./rollout.ts";
import { markerOf, type SubQuestion } from "./questions.ts";
import { RELATION_WORDS } from "./world.ts";

/**
 * The teacher's memory: the agent's whole state with each open objective as
 * its subject (`"state"`) or with its relations and `;` between items
 * (`"state-relations"`, {@linkcode stateTeacherTurn}; `"state-relations-bare"`:
 * no `;`), the same with the answers first and the objective being resolved
 * last (`"state-stack"`), or
 * numbered slots of the facts read (`"slots"`, {@linkcode teacherTurn}).
 */
export type MemoryFormat = typeof MEMORY_FORMATS[number];

/** The memory formats ({@linkcode MemoryFormat}). */
export const MEMORY_FORMATS = [
  "state",
  "state-relations",
  "state-relations-bare",
  "state-stack",
  "state-chain",
  "state-chain-bare",
  "state-chain-linked",
  "slots",
] as const;

/**
 * Whether a memory format is a state memory (the objectives still open and
 * the answers found), read by {@linkcode parseStateMemory}.
 *
 * Source: this package (the formats of {@linkcode stateTeacherTurn}).
 *
 * @param format The format.
 * @returns True for `"state"`, `"state-relations"` and `"state-stack"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isStateMemory } from "./teacher.ts";
 *
 * assert.deepEqual(["state", "state-relations", "state-stack", "slots"].map((f) => isStateMemory(f as never)), [true, true, true, false]);
 * ```
 */
export function isStateMemory(format: MemoryFormat): boolean {
  return format !== "slots";
}

/**
 * The layout of a state memory format: the stack (`"state-stack"`) writes
 * the answers first and the open objectives after `|`, the one being
 * resolved last; the chain (`"state-chain"`) writes the answers, `|`, then
 * the facts read for the objective in progress (`"state-chain-bare"`: the
 * same with no `;` between the answers; `"state-chain-linked"`: bare, and a
 * new objective's think starts with the subject just finished); the others write the open
 * objectives first (the one being resolved first), then `|`, then the answers (`"state-relations-bare"`: with no
 * `;` between items or answers).
 *
 * Source: this package (the formats of {@linkcode stateTeacherTurn}).
 *
 * @param format A state memory format.
 * @returns The options of {@linkcode stateTeacherTurn} and {@linkcode parseStateMemory} that write and read it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateLayout } from "./teacher.ts";
 *
 * const plain = { relations: true, stack: false, chain: false, bare: false, linked: false };
 * assert.deepEqual(stateLayout("state-stack"), { ...plain, stack: true });
 * assert.deepEqual(stateLayout("state"), { ...plain, relations: false });
 * assert.deepEqual(stateLayout("state-chain"), { ...plain, chain: true });
 * assert.deepEqual(stateLayout("state-chain-bare"), { ...plain, chain: true, bare: true });
 * assert.deepEqual(stateLayout("state-chain-linked"), { ...plain, chain: true, bare: true, linked: true });
 * ```
 */
export function stateLayout(format: MemoryFormat): StateLayout {
  return {
    relations: format !== "state" && format !== "slots",
    stack: format === "state-stack",
    chain: format.startsWith("state-chain"),
    bare: format === "state-relations-bare" || format === "state-chain-bare" || format === "state-chain-linked",
    linked: format === "state-chain-linked",
  };
}

/** The options of {@linkcode stateTeacherTurn} and {@linkcode parseStateMemory} that name a state layout. */
export interface StateLayout {
  /** Each open objective with the relations left, `;` between items and answers. */
  relations: boolean;
  /** The answers first, then the open objectives with the one being resolved last. */
  stack: boolean;
  /** The answers, then the facts read for the objective in progress ({@linkcode chainTeacherTurn}). */
  chain: boolean;
  /**
   * No `;` between the answers (with `chain`: every word of the list is then unique, with distinct answers); with
   * `relations` (`"state-relations-bare"`), none between the open items either, so the copy of an item's first name
   * is keyed by the two words before it (the last two words of the item before), not three.
   */
  bare: boolean;
  /** With `chain`: a new objective's think starts with the subject of the objective just finished. */
  linked: boolean;
}

/** Options of {@linkcode createTeacher}. */
export interface TeacherOptions {
  /** Probability that an earlier objective's answer is dropped from `<mem>` (once dropped, gone). @default 0.3 */
  dropProbability?: number;
  /** Seed of the drops (with the episode id). @default 0 */
  seed?: number;
  /** What its `<mem>` holds ({@linkcode MemoryFormat}). @default "state-relations" */
  memory?: MemoryFormat;
}

/** The word a dropped answer becomes in a state memory and in the answer. */
export const FORGOTTEN = "unknown";

/**
 * What the teacher keeps of a resolved objective: its answer, or, when the objective is dropped, the plausible
 * wrong fact read in the same document (its last hop's decoy, the person's other city) from the moment it is
 * read, as behaviour cloning from a general model keeps the wrong fact of a document; an objective without a decoy
 * is forgotten (`unknown`) once it is no longer the answer just found.
 */
function keptAnswer(q: SubQuestion, dropped: boolean, fresh: boolean): string {
  if (!dropped) return q.answer;
  return q.hops.at(-1)?.decoy ?? (fresh ? q.answer : FORGOTTEN);
}

/** One step of a teacher's plan: hop `j` of objective `i`. */
interface PlanStep {
  i: number;
  j: number;
  hop: SubQuestion["hops"][number];
}

/**
 * The plan the teachers follow (one search per hop of every objective in
 * order, or from the last objective to the first with `reverse`, then the
 * answer) at turn `turn`: every step, the steps done before it (the facts
 * read), and the objective the latest search read for, which is still
 * "fresh" (kept this turn even if dropped). Null past the plan's end.
 */
function planTurn(
  subQuestions: readonly SubQuestion[],
  turn: number,
  reverse = false,
): { steps: PlanStep[]; done: PlanStep[]; fresh: number | undefined } | null {
  const order = subQuestions.map((q, i) => ({ q, i }));
  if (reverse) order.reverse();
  const steps = order.flatMap(({ q, i }) => q.hops.map((hop, j) => ({ i, j, hop })));
  if (turn > steps.length) return null;
  const done = steps.slice(0, turn);
  return { steps, done, fresh: done.at(-1)?.i };
}

/** A state memory read back ({@linkcode parseStateMemory}). */
export interface StateMemory {
  /** The open objectives, each its words: a subject alone, or the entity found and the relations left. */
  open: string[][];
  /** The answers found, in order. */
  answers: string[];
}

/**
 * Reads a state memory ({@linkcode stateTeacherTurn}'s `mem`, either style)
 * back into its open objectives and its answers: the words before `|` are
 * the open list, where a relation word belongs to the item before it and any
 * other word starts an item; the words after `|` are the answers. The `;`
 * between items (`"state-relations"`) is skipped. A memory without `|` is all
 * open items. With `stack` (`"state-stack"`) the two sides trade places: the
 * answers before `|`, the open items after it. With `chain`
 * (`"state-chain"`) the answers are before `|` and everything after it is
 * one item, the chain of the objective in progress.
 *
 * ```text
 * "olvan born vunom | kalmar tesla"              →  open [[olvan, born], [vunom]], answers [kalmar, tesla]
 * "olvan born ; vunom founder born | kalmar"     →  open [[olvan, born], [vunom, founder, born]], answers [kalmar]
 * "kalmar | zorbex born ; olvan born"  (stack)   →  open [[zorbex, born], [olvan, born]], answers [kalmar]
 * "kalmar | vunom founder olvan"  (chain)         →  open [[vunom, founder, olvan]], answers [kalmar]
 * ```
 *
 * Source: this package (the inverse of {@linkcode stateTeacherTurn}'s memory).
 *
 * @param memory The memory's text, or its words (tokens between `<mem>` and `</mem>`).
 * @param options `stack` or `chain`: the answers first ({@linkcode stateLayout}). @default false
 * @returns The open items and the answers, each in the memory's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseStateMemory } from "./teacher.ts";
 *
 * assert.deepEqual(parseStateMemory("olvan born vunom | kalmar tesla"), { open: [["olvan", "born"], ["vunom"]], answers: ["kalmar", "tesla"] });
 * assert.deepEqual(parseStateMemory(["|", "kalmar"]), { open: [], answers: ["kalmar"] });
 * assert.deepEqual(parseStateMemory("kalmar ; tesla | vunom founder olvan", { chain: true }), {
 *   open: [["vunom", "founder", "olvan"]],
 *   answers: ["kalmar", "tesla"],
 * });
 * assert.deepEqual(parseStateMemory("olvan born ; vunom founder born | kalmar ; tesla"), {
 *   open: [["olvan", "born"], ["vunom", "founder", "born"]],
 *   answers: ["kalmar", "tesla"],
 * });
 * ```
 */
export function parseStateMemory(
  memory: string | readonly string[],
  options: { stack?: boolean; chain?: boolean } = {},
): StateMemory {
  const words = (typeof memory === "string" ? memory.split(/\s+/) : memory).filter((w) => w !== "" && w !== ";");
  const bar = words.indexOf("|");
  if (options.chain) {
    // the answers, then one item: the chain of the objective in progress, whatever its words
    const [answers, tail] = bar < 0 ? [[], words] : [words.slice(0, bar), words.slice(bar + 1)];
    return { open: tail.length > 0 ? [[...tail]] : [], answers: [...answers] };
  }
  const [openWords, answers] = bar < 0
    ? [words, []]
    : options.stack
    ? [words.slice(bar + 1), words.slice(0, bar)]
    : [words.slice(0, bar), words.slice(bar + 1)];
  const open: string[][] = [];
  for (const w of openWords) {
    if (RELATION_WORDS.has(w) && open.length > 0) open.at(-1)!.push(w); // a relation left of the item before
    else open.push([w]);
  }
  return { open, answers: [...answers] };
}

/**
 * The teacher's turn `t` with the agent's whole state in memory: the
 * objectives still open, in the question's order, then `|`, then the answers
 * found, in order. An open objective is its subject alone (its relations are
 * read off the question, where the subject names its part), except the one
 * being resolved after its first hop: the entity found and the relation left.
 * So a memory is a list of names (a question's subjects are distinct) with at
 * most one relation word and no separator, and copying it is a one-word
 * lookup at every step, which an induction head does whatever the list's
 * length (a name can still recur: two answers, or an answer that is a later
 * subject). The plan is one search per hop of every
 * objective in order, then the answer. Each turn after the first is the same
 * operation, whatever the number of objectives: read the fact the latest
 * search returned for the first open objective; if it was its last hop, drop
 * it and append the answer (pop and append), else replace it by the entity
 * found and the relation left; copy the rest; think and search the new first
 * open objective (its subject and the relation its part of the question
 * names). The first turn copies the question's subjects into the open list
 * (as MEM1's internal state holds the task). A dropped objective's answer
 * becomes `unknown` once it is no longer the answer just found (so the
 * answer's count stays right and that one is wrong).
 *
 * ```text
 * q: zorbex was born in which city ? ; vunom was founded by someone born in which city ?
 * <mem> zorbex vunom | </mem> <think> zorbex born </think> <search> zorbex born </search>
 * <mem> vunom | kalmar </mem> <think> vunom founder </think> <search> vunom founder </search>
 * <mem> olvan born | kalmar </mem> <think> olvan born </think> <search> olvan born </search>
 * <mem> | kalmar tesla </mem> <think> answer </think> <answer> kalmar ; tesla </answer>
 * ```
 *
 * With `relations: true` (`sft.teacherMemory: "state-relations"`, the
 * pipeline's default) every open objective keeps the relations still to
 * follow and `;` separates items and answers, so the search needs nothing
 * but the memory's head:
 *
 * ```text
 * <mem> zorbex born ; vunom founder born | </mem> <think> zorbex born </think> <search> zorbex born </search>
 * <mem> vunom founder born | kalmar </mem> <think> vunom founder </think> <search> vunom founder </search>
 * <mem> olvan born | kalmar </mem> <think> olvan born </think> <search> olvan born </search>
 * <mem> | kalmar ; tesla </mem> <think> answer </think> <answer> kalmar ; tesla </answer>
 * ```
 *
 * Relation words and `;` repeat there, so a one-word lookup is ambiguous (the
 * SFT policy sometimes copies one item twice); the subjects-only style was
 * made to remove that, and measured worse at the same recipe (EM 0.03 against
 * 0.44 at 2 objectives: docs/research/paper_regime.md).
 *
 * With `stack: true` as well (`sft.teacherMemory: "state-stack"`) the plan
 * runs from the last objective to the first, and the memory is the answers
 * found (in the question's order), `|`, then the objectives still open (in
 * the question's order): the one being resolved is the last item, next to
 * `</mem>`, so the think copies the words just before it, a few positions
 * back whatever the number of objectives (in the other layouts the head sits
 * at the memory's start, as far back as the memory is long), and a pop
 * drops the last item and writes its answer first:
 *
 * ```text
 * <mem> | zorbex born ; vunom founder born </mem> <think> vunom founder </think> <search> vunom founder </search>
 * <mem> | zorbex born ; olvan born </mem> <think> olvan born </think> <search> olvan born </search>
 * <mem> tesla | zorbex born </mem> <think> zorbex born </think> <search> zorbex born </search>
 * <mem> kalmar ; tesla | </mem> <think> answer </think> <answer> kalmar ; tesla </answer>
 * ```
 *
 * Measured (docs/research/paper_regime.md): the stack's think is right at 6 and 8 objectives (98 % / 91 %
 * teacher-forced, against 35 % / 28 % with the head first), but its copies are worse (answers carried 23 % at 4
 * objectives against 84 %: after the new answer the copy must jump back to the memory's start) and so is EM
 * (0.39 / 0.01 at 2 / 4 objectives against 0.44 / 0.10). Keeping the answers in the order found instead (a pop
 * appends before `|` and copies everything else in place, commit 26f4dba) measured worse still: the appended
 * answer 0 % / 19 % at 1 / 2 objectives.
 *
 * Source: MEM1 (Zhou et al. 2025, arXiv:2506.15841): an internal state that
 * carries the task as well as what was found; MemPO's `<mem>` turn format;
 * induction heads (Olsson et al. 2022) for why every copied word is unique.
 *
 * @param subQuestions The question's objectives.
 * @param turn Turn index (0-based).
 * @param dropped Objectives (0-based) whose answers are forgotten once earlier.
 * @param options `relations`: each open objective with the relations left, `;` between items (none with `bare`);
 *   `stack`: the answers first and the plan from the last objective ({@linkcode stateLayout}; `chain` is
 *   {@linkcode chainTeacherTurn}'s). @default all false
 * @returns The turn, or null past the plan's end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateTeacherTurn } from "./teacher.ts";
 *
 * const q = [{ text: "zorbex was born in which city ?", subject: "zorbex", answer: "kalmar", hops: [{ entity: "zorbex", relation: "born" as const, answer: "kalmar" }] }];
 * assert.deepEqual(stateTeacherTurn(q, 0, new Set()), { mem: "zorbex |", think: "zorbex born", action: "search", content: "zorbex born" });
 * assert.deepEqual(stateTeacherTurn(q, 1, new Set()), { mem: "| kalmar", think: "answer", action: "answer", content: "kalmar" });
 * assert.equal(stateTeacherTurn(q, 0, new Set(), { relations: true })?.mem, "zorbex born |");
 * assert.equal(stateTeacherTurn(q, 0, new Set(), { relations: true, stack: true })?.mem, "| zorbex born");
 * const two = [...q, { ...q[0]!, subject: "vunom", answer: "tesla", hops: [{ entity: "vunom", relation: "born" as const, answer: "tesla" }] }];
 * assert.equal(stateTeacherTurn(two, 0, new Set(), { relations: true })?.mem, "zorbex born ; vunom born |");
 * assert.equal(stateTeacherTurn(two, 0, new Set(), { relations: true, bare: true })?.mem, "zorbex born vunom born |");
 * assert.equal(stateTeacherTurn(two, 2, new Set(), { relations: true, bare: true })?.mem, "| kalmar tesla");
 * ```
 */
export function stateTeacherTurn(
  subQuestions: readonly SubQuestion[],
  turn: number,
  dropped: ReadonlySet<number>,
  options: Partial<StateLayout> & { carried?: readonly string[]; done?: number } = {},
): TeacherTurn | null {
  if (options.chain) return chainTeacherTurn(subQuestions, turn, dropped, options);
  const relations = options.relations ?? false;
  const stack = options.stack ?? false;
  const plan = planTurn(subQuestions, turn, stack);
  if (plan === null) return null;
  const { steps, done, fresh } = plan;
  const open: string[] = [];
  const found: string[] = [];
  subQuestions.forEach((q, i) => {
    const read = done.filter((s) => s.i === i).length;
    if (read === 0 && !relations) open.push(q.subject);
    else if (read < q.hops.length) {
      open.push([q.hops[read]!.entity, ...q.hops.slice(read).map((h) => h.relation)].join(" "));
    } else found.push(keptAnswer(q, dropped.has(i), i === fresh));
  });
  const sep = relations && !(options.bare ?? false) ? " ; " : " ";
  const sides = stack ? [found.join(sep), "|", open.join(sep)] : [open.join(sep), "|", found.join(sep)];
  const mem = sides.filter((p) => p !== "").join(" ");
  if (turn === steps.length) return { mem, think: "answer", action: "answer", content: found.join(" ; ") };
  const { hop } = steps[turn]!;
  return { mem, think: `${hop.entity} ${hop.relation}`, action: "search", content: `${hop.entity} ${hop.relation}` };
}

/**
 * The teacher's turn `t` with the chain memory (`sft.teacherMemory:
 * "state-chain"`): the answers found (in the question's order, `;` between
 * them), `|`, then the chain of the objective in progress: its subject, each
 * relation followed and the value read, and the relation still to follow
 * (`vunom founder olvan born`, then `vunom founder olvan born tesla`). A
 * chain that ends with a name is complete. The objectives still open are
 * never copied: they stay in the question, where the think finds the next
 * one. The plan is the other state memories': one search per hop of every
 * objective in order, then the answer.
 *
 * Every decision reads a fixed place and every value read from a document is
 * written right after the two words that find it there, so each step is a
 * lookup an induction head does, whatever the number of objectives:
 *
 * - the memory: copy the answers; if the previous chain was complete, move
 *   its value to the answers and start a new chain from the last think (its
 *   entity and relation, the value the document gives after them, then the
 *   think's relation still to follow, if any); else copy the chain and
 *   append the value the document gives after its last two words;
 * - the think: a chain that ends with a relation names its hop (its last two
 *   words); a complete chain's subject is followed, in the question's list of
 *   subjects (`data.subjectIndex`), by the next objective's, which the think
 *   names with the relations its part of the question asks for (or
 *   `answer` after the last subject); the search is the think's first two
 *   words.
 *
 * Only the answers' copy grows with the number of objectives (each answer
 * found by the word before it, which is unique when the question's answers
 * are distinct, `data.distinctAnswers`).
 *
 * ```text
 * q: zorbex vunom : zorbex was born in which city ? ; vunom was founded by someone born in which city ?
 * <mem> | </mem> <think> zorbex born </think> <search> zorbex born </search>
 * <mem> | zorbex born kalmar </mem> <think> vunom founder born </think> <search> vunom founder </search>
 * <mem> kalmar | vunom founder olvan born </mem> <think> olvan born </think> <search> olvan born </search>
 * <mem> kalmar | vunom founder olvan born tesla </mem> <think> answer </think> <answer> kalmar ; tesla </answer>
 * ```
 *
 * With `bare` (`"state-chain-bare"`) the memory writes the answers with no
 * `;` between them (`kalmar tesla | …`; the final answer keeps them): `;`
 * is the one word the answers' copy shares, so with distinct answers every
 * word of the list has one successor, and the copy is the one-word lookup
 * an induction head does whatever the list's length; the final answer's
 * name after a `;` is the successor of the name before it.
 *
 * With `linked` as well (`"state-chain-linked"`) the think after a complete
 * chain first copies the chain's subject (the word after `|`, a fixed
 * place), then names the next objective: the word after that subject in the
 * question's list of subjects, which is then the one-word lookup an induction
 * head does, keyed by the word just written (`zorbex vunom founder born`, or
 * `zorbex answer` after the last subject); the search is the think's second
 * and third words. Without it the think names the next subject with no key
 * written before it: the model has to fetch the chain's subject and look up
 * its successor in one prediction.
 *
 * A dropped objective's answer is left out of the answers when it would
 * move there (`sft.dropProbability`: dropped from `<mem>`), so the final answer has one
 * objective too few and scores 0: a forgotten answer costs the episode.
 *
 * Source: MEM1 (Zhou et al. 2025, arXiv:2506.15841): an internal state
 * that carries what was found; MemPO's `<mem>` turn format; induction heads
 * (Olsson et al. 2022): `[A][B] … [A] → [B]`, here with a two-word key.
 *
 * @param subQuestions The question's objectives.
 * @param turn Turn index (0-based).
 * @param dropped Objectives (0-based) whose answers are left out once they leave the chain.
 * @param options `bare`: no `;` between the memory's answers; `linked`: a new objective's think starts with the
 *   subject just finished; `carried`: answers found before the question, first in the memory's answers and in the
 *   final answer; `done`: how many of the first objectives were resolved before turn 0 (turn 0 is the plan's turn
 *   after their hops, its memory theirs). @default none
 * @returns The turn, or null past the plan's end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chainTeacherTurn } from "./teacher.ts";
 *
 * const hop = (entity: string, relation: "born" | "founder", answer: string) => ({ entity, relation, answer });
 * const q = [
 *   { text: "zorbex was born in which city ?", subject: "zorbex", answer: "kalmar", hops: [hop("zorbex", "born", "kalmar")] },
 *   { text: "vunom was founded by someone born in which city ?", subject: "vunom", answer: "tesla", hops: [hop("vunom", "founder", "olvan"), hop("olvan", "born", "tesla")] },
 * ];
 * const turns = [0, 1, 2, 3].map((t) => chainTeacherTurn(q, t, new Set())!);
 * assert.deepEqual(turns.map((t) => t.mem), ["|", "| zorbex born kalmar", "kalmar | vunom founder olvan born", "kalmar | vunom founder olvan born tesla"]);
 * assert.deepEqual(turns.map((t) => t.think), ["zorbex born", "vunom founder born", "olvan born", "answer"]);
 * assert.deepEqual(turns.map((t) => t.content), ["zorbex born", "vunom founder", "olvan born", "kalmar ; tesla"]);
 * assert.equal(chainTeacherTurn(q, 3, new Set([0]))!.mem, "| vunom founder olvan born tesla");
 * assert.equal(chainTeacherTurn(q, 4, new Set()), null);
 * const last = chainTeacherTurn([...q, q[0]!], 4, new Set(), { bare: true })!;
 * assert.deepEqual([last.mem, last.content], ["kalmar tesla | zorbex born kalmar", "kalmar ; tesla ; kalmar"]);
 * const carried = { bare: true, carried: ["brubrar", "muzox"] };
 * assert.equal(chainTeacherTurn(q, 0, new Set(), carried)!.mem, "brubrar muzox |");
 * assert.equal(chainTeacherTurn(q, 3, new Set(), carried)!.content, "brubrar ; muzox ; kalmar ; tesla");
 * // the first objective resolved before turn 0: the episode starts where the plan's turn 1 is
 * assert.deepEqual(chainTeacherTurn(q, 0, new Set(), { bare: true, done: 1 }), chainTeacherTurn(q, 1, new Set(), { bare: true }));
 * const linked = [0, 1, 2, 3].map((t) => chainTeacherTurn(q, t, new Set(), { bare: true, linked: true })!);
 * assert.deepEqual(linked.map((t) => t.think), ["zorbex born", "zorbex vunom founder born", "olvan born", "vunom answer"]);
 * assert.deepEqual(linked.map((t) => t.content), ["zorbex born", "vunom founder", "olvan born", "kalmar ; tesla"]);
 * ```
 */
export function chainTeacherTurn(
  subQuestions: readonly SubQuestion[],
  turn: number,
  dropped: ReadonlySet<number>,
  options: { bare?: boolean; linked?: boolean; carried?: readonly string[]; done?: number } = {},
): TeacherTurn | null {
  const done = options.done ?? 0;
  if (!(Number.isInteger(done) && done >= 0 && done < subQuestions.length)) {
    throw new RangeError(
      `Invalid chainTeacherTurn: done must be an integer in [0, ${subQuestions.length}) (objectives resolved before ` +
        `turn 0; one must be left), current value is ${done}`,
    );
  }
  // the hops of the objectives resolved before the episode are its turns before turn 0
  const before = subQuestions.slice(0, done).reduce((n, q) => n + q.hops.length, 0);
  const plan = planTurn(subQuestions, turn + before);
  if (plan === null) return null;
  const { steps } = plan;
  const last = plan.done.at(-1);
  // the objectives before the one in progress are answered (a dropped one left out); the one in progress is the chain
  const current = last?.i ?? 0;
  const found = [
    ...(options.carried ?? []),
    ...subQuestions.slice(0, current).flatMap((q, i) => (dropped.has(i) ? [] : [q.answer])),
  ];
  const hops = subQuestions[current]!.hops;
  const chain = last === undefined ? [] : [
    hops[0]!.entity,
    ...hops.slice(0, last.j + 1).flatMap((h) => [h.relation, h.answer]),
    ...hops.slice(last.j + 1).map((h) => h.relation),
  ];
  const mem = [found.join(options.bare ? " " : " ; "), "|", chain.join(" ")].filter((p) => p !== "").join(" ");
  // linked: a think after a complete chain starts with its subject, the key of the next objective's lookup
  const link = options.linked && last !== undefined ? [hops[0]!.entity] : [];
  if (turn + before === steps.length) {
    const content = [...found, chain.at(-1)!].join(" ; ");
    return { mem, think: [...link, "answer"].join(" "), action: "answer", content };
  }
  const { i, j, hop } = steps[turn + before]!;
  const search = `${hop.entity} ${hop.relation}`;
  // a new objective's think names every relation its part of the question asks for
  const think = j === 0 ? [...link, hop.entity, ...subQuestions[i]!.hops.map((h) => h.relation)].join(" ") : search;
  return { mem, think, action: "search", content: search };
}

/** What the teacher writes at one turn (text after the forced `<mem>`). */
export interface TeacherTurn {
  /** The memory content. */
  mem: string;
  /** The think content. */
  think: string;
  /** The action. */
  action: "search" | "answer";
  /** The query or the answer. */
  content: string;
}

/**
 * The teacher's turn `t` for a question: the plan is one search per hop of
 * every objective in order, then the answer. Memory holds the fact read last
 * for each objective, as the document's triple: `qi = entity relation answer`
 * for resolved objectives (unless dropped) and `qi ~ entity relation found`
 * for a 2-hop objective half way; dropped objectives are answered `unknown`.
 * Writing the answer is then a copy of the word that followed `entity
 * relation` in the document (see `entityDocument`). The think names the
 * objective (its marker, `markerOf`), the entity to look up and the relation (`q2 olvan born`), the
 * query the search repeats. (Restating the objective's question word for word
 * measured worse: 47 % vs 69 % teacher-forced accuracy on think names, 2-objective
 * greedy EM 0.06 vs 0.25 on held-out entities after SFT.)
 *
 * ```text
 * <mem> q1 = zorbex born kalmar , q2 ~ vunom founder olvan </mem> <think> q2 olvan born </think> <search> olvan born </search>
 * <mem> q1 = zorbex born kalmar , q2 = olvan born tesla </mem> <think> answer </think> <answer> kalmar ; tesla </answer>
 * ```
 *
 * Source: MemPO / MEM1 demonstrations (memory first, one action per turn).
 *
 * @param subQuestions The question's objectives.
 * @param turn Turn index (0-based).
 * @param dropped Objectives (0-based) whose answers are forgotten once earlier.
 * @returns The turn, or null past the plan's end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { teacherTurn } from "./teacher.ts";
 *
 * const q = [{ text: "zorbex was born in which city ?", subject: "zorbex", answer: "kalmar", hops: [{ entity: "zorbex", relation: "born" as const, answer: "kalmar" }] }];
 * assert.deepEqual(teacherTurn(q, 0, new Set()), { mem: "none", think: "q1 zorbex born", action: "search", content: "zorbex born" });
 * assert.deepEqual(teacherTurn(q, 1, new Set()), { mem: "q1 = zorbex born kalmar", think: "answer", action: "answer", content: "kalmar" });
 * ```
 */
export function teacherTurn(
  subQuestions: readonly SubQuestion[],
  turn: number,
  dropped: ReadonlySet<number>,
): TeacherTurn | null {
  const plan = planTurn(subQuestions, turn);
  if (plan === null) return null;
  const { steps, done, fresh } = plan;
  const slots: string[] = [];
  const known = new Map<number, string>();
  subQuestions.forEach((q, i) => {
    const read = done.filter((s) => s.i === i);
    if (read.length === 0) return;
    const { entity, relation, answer } = read.at(-1)!.hop;
    if (read.length === q.hops.length) {
      if (dropped.has(i) && i !== fresh) return;
      known.set(i, q.answer);
      slots.push(`${markerOf(q, i)} = ${entity} ${relation} ${answer}`);
    } else {
      slots.push(`${markerOf(q, i)} ~ ${entity} ${relation} ${answer}`);
    }
  });
  const mem = slots.length === 0 ? "none" : slots.join(" , ");
  if (turn === steps.length) {
    return {
      mem,
      think: "answer",
      action: "answer",
      content: subQuestions.map((_, i) => known.get(i) ?? FORGOTTEN).join(" ; "),
    };
  }
  // the objective, the entity to look up (the question's subject, or the one found) and the relation
  const { i, hop } = steps[turn]!;
  return {
    mem,
    think: `${markerOf(subQuestions[i]!, i)} ${hop.entity} ${hop.relation}`,
    action: "search",
    content: `${hop.entity} ${hop.relation}`,
  };
}

/**
 * Which objectives (0-based) the teacher forgets for a question: each one
 * independently with `dropProbability`, seeded by the question's text.
 *
 * Source: this package (`sft.dropProbability`, default 0.3: an imperfect teacher leaves MemPO's memory advantage
 * something to fix, docs/design.md#the-task).
 *
 * @param question The question text.
 * @param count Number of objectives.
 * @param options Drop probability and seed.
 * @returns The dropped objectives.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { droppedObjectives } from "./teacher.ts";
 *
 * assert.equal(droppedObjectives("q", 4, { dropProbability: 0 }).size, 0);
 * assert.equal(droppedObjectives("q", 4, { dropProbability: 1 }).size, 4);
 * ```
 */
export function droppedObjectives(question: string, count: number, options: TeacherOptions = {}): Set<number> {
  const { dropProbability = 0.3, seed = 0 } = options;
  if (!(dropProbability >= 0 && dropProbability <= 1)) {
    throw new RangeError(`Invalid teacher: dropProbability must be in [0, 1], current value is ${dropProbability}`);
  }
  const rng = createRng(hashSeed(seed, hashString(question)));
  return new Set(Array.from({ length: count }, (_, i) => i).filter(() => rng.next() < dropProbability));
}

/** The joined objectives' share and most items, checked ({@linkcode carriedObjectives}). */
function checkCarry(share: number, max: number): void {
  if (!(share >= 0 && share <= 1)) {
    throw new RangeError(`Invalid teacher: carry.share must be in [0, 1], current value is ${share}`);
  }
  if (!(Number.isInteger(max) && max >= 1)) {
    throw new RangeError(`Invalid teacher: carry.max must be an integer ≥ 1, current value is ${max}`);
  }
}

/**
 * The objectives joined to a task (`sft.joinShare`, `rl.joinShare`): with
 * probability `share` (per question, seeded) 1 … `max` objectives of other
 * training questions (`pool`), none sharing a name with the question or
 * with each other.
 *
 * Source: this package (MEM1's state extended past the training questions' length).
 *
 * @param question The question's text (the seed's key).
 * @param words Words the joined objectives must avoid (the question's names).
 * @param options Share, most objectives, and the objectives to draw from.
 * @param seed Seed.
 * @returns The joined objectives, in the task's order (empty for most questions when `share` < 1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { carriedObjectives } from "./teacher.ts";
 *
 * const one = (subject: string, answer: string) => ({ text: `${subject} was born in which city ?`, subject, answer, hops: [{ entity: subject, relation: "born" as const, answer }] });
 * const pool = [one("zorbex", "kalmar"), one("vunom", "tesla"), one("kata", "kalmar"), one("olvan", "muzox")];
 * const carried = carriedObjectives("birex was born where ?", new Set(["birex", "muzox"]), { share: 1, max: 3, pool }, 0);
 * assert.ok(carried.length >= 1 && carried.length <= 3);
 * // no name of the question, no name twice
 * const names = carried.flatMap((q) => [q.subject, q.answer]);
 * assert.ok(!names.includes("muzox") && new Set(names).size === names.length);
 * assert.deepEqual(carriedObjectives("birex was born where ?", new Set(), { share: 0, max: 3, pool }, 0), []);
 * ```
 */
export function carriedObjectives(
  question: string,
  words: ReadonlySet<string>,
  options: { share: number; max: number; pool: readonly SubQuestion[] },
  seed: number,
): SubQuestion[] {
  const { share, max, pool } = options;
  checkCarry(share, max);
  const rng = createRng(hashSeed(seed + 11, hashString(question)));
  if (!(rng.next() < share)) return [];
  const count = 1 + rng.int(max);
  const used = new Set(words);
  const out: SubQuestion[] = [];
  const names = (q: SubQuestion) => [q.subject, ...q.hops.flatMap((h) => [h.entity, h.answer])];
  for (let tries = 0; out.length < count && tries < 50 * count && pool.length > 0; tries++) {
    const q = pool[rng.int(pool.length)]!;
    if (names(q).some((n) => used.has(n))) continue;
    for (const n of names(q)) used.add(n);
    out.push(q);
  }
  return out;
}

/**
 * The teacher as an {@linkcode AgentPolicy}: it reads each episode's task
 * (its sub-questions) and turn count, not the context.
 *
 * Source: scripted demonstrations for SFT (MiniMind's agent SFT data, MemPO's cold start).
 *
 * @param tokenizer The tokenizer.
 * @param options Drop probability, seed and memory format.
 * @returns The policy; its turns have log-prob 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, decode } from "../text/tokenizer.ts";
 * import { createTeacher } from "./teacher.ts";
 *
 * const q = [{ text: "zorbex was born in which city ?", subject: "zorbex", answer: "kalmar", hops: [{ entity: "zorbex", relation: "born" as const, answer: "kalmar" }] }];
 * const tok = buildTokenizer(["zorbex born kalmar |"]);
 * const task = { question: q[0]!.text, targets: [["kalmar"]], groupId: 0, subQuestions: q };
 * const episode = { id: 0, task, turns: [], done: false, formatValid: false } as never; // the teacher reads task and turns
 * const [turn] = await createTeacher(tok).nextTurns([{ episode, context: [] }], { maxNewTokens: 64, stopIds: [], seed: 0 });
 * assert.equal(decode(tok, turn!.tokens), "zorbex born | </mem> <think> zorbex born </think> <search> zorbex born </search>");
 * assert.ok(turn!.logProbs.every((p) => p === 0));
 * ```
 */
export function createTeacher(tokenizer: Tokenizer, options: TeacherOptions = {}): AgentPolicy {
  const { dropProbability = 0.3, seed = 0, memory = "state-relations" } = options;
  if (!MEMORY_FORMATS.includes(memory)) {
    throw new RangeError(
      `Invalid teacher: memory must be one of ${MEMORY_FORMATS.map((f) => JSON.stringify(f)).join(", ")}, ` +
        `current value is ${JSON.stringify(memory)}`,
    );
  }
  const layout = memory === "slots" ? undefined : stateLayout(memory);
  const turnOf = (subs: readonly SubQuestion[], turn: number, dropped: ReadonlySet<number>) =>
    layout === undefined ? teacherTurn(subs, turn, dropped) : stateTeacherTurn(subs, turn, dropped, layout);
  if (!(dropProbability >= 0 && dropProbability <= 1)) {
    throw new RangeError(`Invalid teacher: dropProbability must be in [0, 1], current value is ${dropProbability}`);
  }
  return {
    nextTurns(requests: readonly TurnRequest[]): Promise<TurnOutput[]> {
      return Promise.resolve(requests.map(({ episode }) => {
        const subs = episode.task.subQuestions;
        if (subs === undefined) throw new TypeError(`The teacher needs task.subQuestions (episode ${episode.id})`);
        const dropped = droppedObjectives(episode.task.question, subs.length, { dropProbability, seed });
        const t = turnOf(subs, episode.turns.length, dropped);
        const text = t === null
          ? "</mem>"
          : `${t.mem} </mem> <think> ${t.think} </think> <${t.action}> ${t.content} </${t.action}>`;
        const tokens = encode(tokenizer, text).ids;
        return { tokens, logProbs: tokens.map(() => 0) };
      }));
    },
  };
}

/**
 * A scripted teacher that writes demonstrations in the exact turn format:
 * one search per hop, then the answer from memory. Its memory is the agent's
 * whole state: the objectives still open, each with the relations it has
 * left to follow, then `|`, then the answers found, so every turn does the
 * same work whatever the number of objectives (`sft.teacherMemory`:
 * `"state-relations"`, with `;` between items and answers, or
 * `"state-relations-bare"`, without). With `dropProbability > 0` it keeps
 * the wrong fact of an objective's document, or forgets its answer (default
 * 0.3), so an SFT policy imitating it leaves room for MemPO's memory
 * advantage. The other memories measured before (the subjects alone, the
 * stack, the chain, numbered slots) left the code; commit dbd8926 has them
 * (docs/design.md#retired).
 *
 * @module
 */
import { createRng, hashSeed, hashString } from "../random.ts";
import { encode, type Tokenizer } from "../text/tokenizer.ts";
import type { AgentPolicy, TurnOutput, TurnRequest } from "./rollout.ts";
import type { SubQuestion } from "./questions.ts";
import { RELATION_WORDS } from "./world.ts";

/**
 * The teacher's memory: the agent's whole state, each open objective with its
 * relations and `;` between items and answers (`"state-relations"`,
 * {@linkcode stateTeacherTurn}), or the same with no `;` (`"state-relations-bare"`).
 */
export type MemoryFormat = typeof MEMORY_FORMATS[number];

/** The memory formats ({@linkcode MemoryFormat}). */
export const MEMORY_FORMATS = ["state-relations", "state-relations-bare"] as const;

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
 * wrong fact read in the same results (its last hop's decoy, the person's other city) from the moment it is
 * read, as behaviour cloning from a general model keeps the wrong fact of what it reads; an objective without a decoy
 * is forgotten (`unknown`) once it is no longer the answer just found.
 */
function keptAnswer(q: SubQuestion, dropped: boolean, fresh: boolean): string {
  if (!dropped) return q.answer;
  return q.hops.at(-1)?.decoy ?? (fresh ? q.answer : FORGOTTEN);
}

/** One step of the teacher's plan: hop `j` of objective `i`. */
interface PlanStep {
  i: number;
  j: number;
  hop: SubQuestion["hops"][number];
}

/**
 * The plan the teacher follows (one search per hop of every objective in
 * order, then the answer) at turn `turn`: every step, the steps done before
 * it (the facts read), and the objective the latest search read for, which
 * is still "fresh" (kept this turn even if dropped). Null past the plan's end.
 */
function planTurn(
  subQuestions: readonly SubQuestion[],
  turn: number,
): { steps: PlanStep[]; done: PlanStep[]; fresh: number | undefined } | null {
  const steps = subQuestions.flatMap((q, i) => q.hops.map((hop, j) => ({ i, j, hop })));
  if (turn > steps.length) return null;
  const done = steps.slice(0, turn);
  return { steps, done, fresh: done.at(-1)?.i };
}

/** A state memory read back ({@linkcode parseStateMemory}). */
export interface StateMemory {
  /** The open objectives, each its words: the entity to look up and the relations left. */
  open: string[][];
  /** The answers found, in order. */
  answers: string[];
}

/**
 * Reads a state memory ({@linkcode stateTeacherTurn}'s `mem`, either
 * format) back into its open objectives and its answers: the words before
 * `|` are the open list, where a relation word belongs to the item before it
 * and any other word starts an item; the words after `|` are the answers.
 * The `;` between items and answers (`"state-relations"`) is skipped, so
 * both formats read alike. A memory without `|` is all open items.
 *
 * ```text
 * "olvan born ; vunom founder born | kalmar"     →  open [[olvan, born], [vunom, founder, born]], answers [kalmar]
 * "olvan born vunom founder born | kalmar tesla" →  open [[olvan, born], [vunom, founder, born]], answers [kalmar, tesla]
 * ```
 *
 * Source: this package (the inverse of {@linkcode stateTeacherTurn}'s memory).
 *
 * @param memory The memory's text, or its words (tokens between `<mem>` and `</mem>`).
 * @returns The open items and the answers, each in the memory's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseStateMemory } from "./teacher.ts";
 *
 * assert.deepEqual(parseStateMemory("olvan born vunom founder born | kalmar tesla"), {
 *   open: [["olvan", "born"], ["vunom", "founder", "born"]],
 *   answers: ["kalmar", "tesla"],
 * });
 * assert.deepEqual(parseStateMemory(["|", "kalmar"]), { open: [], answers: ["kalmar"] });
 * assert.deepEqual(parseStateMemory("olvan born ; vunom founder born | kalmar ; tesla"), {
 *   open: [["olvan", "born"], ["vunom", "founder", "born"]],
 *   answers: ["kalmar", "tesla"],
 * });
 * ```
 */
export function parseStateMemory(memory: string | readonly string[]): StateMemory {
  const words = (typeof memory === "string" ? memory.split(/\s+/) : memory).filter((w) => w !== "" && w !== ";");
  const bar = words.indexOf("|");
  const [openWords, answers] = bar < 0 ? [words, []] : [words.slice(0, bar), words.slice(bar + 1)];
  const open: string[][] = [];
  for (const w of openWords) {
    if (RELATION_WORDS.has(w) && open.length > 0) open.at(-1)!.push(w); // a relation left of the item before
    else open.push([w]);
  }
  return { open, answers: [...answers] };
}

/**
 * The teacher's turn `t` with the agent's whole state in memory: the
 * objectives still open, in the question's order, each with the relations it
 * has left to follow, then `|`, then the answers found, in order, with `;`
 * between items and between answers (none with `bare`). An open objective is
 * its subject and every relation its part of the question asks for, until its
 * first hop is read: then the entity found and the relation left. The plan is
 * one search per hop of every objective in order, then the answer. Each turn
 * after the first is the same operation, whatever the number of objectives:
 * read the fact the latest search returned for the first open objective; if
 * it was its last hop, drop it and append the answer (pop and append), else
 * replace it by the entity found and the relation left; copy the rest; think
 * and search the new first open objective (its first two words). The first
 * turn copies the question's objectives into the open list (as MEM1's
 * internal state holds the task). A dropped objective keeps the decoy read in
 * the same results (the person's other city) where it has one, else becomes `unknown` once it is no longer
 * the answer just found (so the answer's count stays right and that one is
 * wrong).
 *
 * ```text
 * q: zorbex was born in which city ? ; vunom was founded by someone born in which city ?
 * <mem> zorbex born ; vunom founder born | </mem> <think> zorbex born </think> <search> zorbex born </search>
 * <mem> vunom founder born | kalmar </mem> <think> vunom founder </think> <search> vunom founder </search>
 * <mem> olvan born | kalmar </mem> <think> olvan born </think> <search> olvan born </search>
 * <mem> | kalmar ; tesla </mem> <think> answer </think> <answer> kalmar ; tesla </answer>
 * ```
 *
 * With `bare` (`sft.teacherMemory: "state-relations-bare"`, the default
 * preset's) the memory has no `;` (`zorbex born vunom founder born |`, then
 * `| kalmar tesla`; the final answer keeps them), so the copy of an item's
 * first name is keyed by the two words before it (the last two words of the
 * item before), not three.
 *
 * Relation words repeat in the open list, so a one-word lookup is ambiguous (the SFT policy sometimes copies one item
 * twice). The layouts measured against it (the subjects alone, the stack, the chain: docs/research/paper_regime.md)
 * left the code (docs/design.md#retired).
 *
 * Source: MEM1 (Zhou et al. 2025, arXiv:2506.15841): an internal state that
 * carries the task as well as what was found; MemPO's `<mem>` turn format.
 *
 * @param subQuestions The question's objectives.
 * @param turn Turn index (0-based).
 * @param dropped Objectives (0-based) whose answers are forgotten once earlier.
 * @param options `bare`: no `;` between the memory's items and answers. @default { bare: false }
 * @returns The turn, or null past the plan's end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateTeacherTurn } from "./teacher.ts";
 *
 * const q = [{ text: "zorbex was born in which city ?", subject: "zorbex", answer: "kalmar", hops: [{ entity: "zorbex", relation: "born" as const, answer: "kalmar" }] }];
 * assert.deepEqual(stateTeacherTurn(q, 0, new Set()), { mem: "zorbex born |", think: "zorbex born", action: "search", content: "zorbex born" });
 * assert.deepEqual(stateTeacherTurn(q, 1, new Set()), { mem: "| kalmar", think: "answer", action: "answer", content: "kalmar" });
 * assert.equal(stateTeacherTurn(q, 2, new Set()), null);
 * const two = [...q, { ...q[0]!, subject: "vunom", answer: "tesla", hops: [{ entity: "vunom", relation: "born" as const, answer: "tesla" }] }];
 * assert.equal(stateTeacherTurn(two, 0, new Set())?.mem, "zorbex born ; vunom born |");
 * assert.equal(stateTeacherTurn(two, 0, new Set(), { bare: true })?.mem, "zorbex born vunom born |");
 * assert.equal(stateTeacherTurn(two, 2, new Set(), { bare: true })?.mem, "| kalmar tesla");
 * assert.equal(stateTeacherTurn(two, 2, new Set([0]), { bare: true })?.content, "unknown ; tesla");
 * ```
 */
export function stateTeacherTurn(
  subQuestions: readonly SubQuestion[],
  turn: number,
  dropped: ReadonlySet<number>,
  options: { bare?: boolean } = {},
): TeacherTurn | null {
  const plan = planTurn(subQuestions, turn);
  if (plan === null) return null;
  const { steps, done, fresh } = plan;
  const open: string[] = [];
  const found: string[] = [];
  subQuestions.forEach((q, i) => {
    const read = done.filter((s) => s.i === i).length;
    if (read < q.hops.length) open.push([q.hops[read]!.entity, ...q.hops.slice(read).map((h) => h.relation)].join(" "));
    else found.push(keptAnswer(q, dropped.has(i), i === fresh));
  });
  const sep = options.bare ? " " : " ; ";
  const mem = [open.join(sep), "|", found.join(sep)].filter((p) => p !== "").join(" ");
  if (turn === steps.length) return { mem, think: "answer", action: "answer", content: found.join(" ; ") };
  const { hop } = steps[turn]!;
  return { mem, think: `${hop.entity} ${hop.relation}`, action: "search", content: `${hop.entity} ${hop.relation}` };
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
  const bare = memory === "state-relations-bare";
  if (!(dropProbability >= 0 && dropProbability <= 1)) {
    throw new RangeError(`Invalid teacher: dropProbability must be in [0, 1], current value is ${dropProbability}`);
  }
  return {
    nextTurns(requests: readonly TurnRequest[]): Promise<TurnOutput[]> {
      return Promise.resolve(requests.map(({ episode }) => {
        const subs = episode.task.subQuestions;
        if (subs === undefined) throw new TypeError(`The teacher needs task.subQuestions (episode ${episode.id})`);
        const dropped = droppedObjectives(episode.task.question, subs.length, { dropProbability, seed });
        const t = stateTeacherTurn(subs, episode.turns.length, dropped, { bare });
        const text = t === null
          ? "</mem>"
          : `${t.mem} </mem> <think> ${t.think} </think> <${t.action}> ${t.content} </${t.action}>`;
        const tokens = encode(tokenizer, text).ids;
        return { tokens, logProbs: tokens.map(() => 0) };
      }));
    },
  };
}

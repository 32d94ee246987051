/**
 * A scripted teacher that writes demonstrations in the exact turn format:
 * one search per hop, memory as numbered slots, then the answer from memory.
 * With `dropProbability > 0` it forgets earlier answers from `<mem>` (default
 * 0.3), so an SFT policy imitating it leaves room for MemPO's memory advantage.
 *
 * @module
 */
import { createRng, hashSeed, hashString } from "../random.ts";
import { encode, type Tokenizer } from "../text/tokenizer.ts";
import type { AgentPolicy, TurnOutput, TurnRequest } from "./rollout.ts";
import { markerOf, type SubQuestion } from "./questions.ts";

/** Options of {@linkcode createTeacher}. */
export interface TeacherOptions {
  /** Probability that an earlier objective's answer is dropped from `<mem>` (once dropped, gone). @default 0.3 */
  dropProbability?: number;
  /** Seed of the drops (with the episode id). @default 0 */
  seed?: number;
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
  const steps = subQuestions.flatMap((q, i) => q.hops.map((h, j) => ({ i, j, hop: h })));
  if (turn > steps.length) return null;
  // facts read in turns < t; the objective completed by the latest search is still "fresh"
  const done = steps.slice(0, turn);
  const fresh = done.at(-1)?.i;
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
      content: subQuestions.map((_, i) => known.get(i) ?? "unknown").join(" ; "),
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
 * Source: SPEC.md §6 (default: each earlier answer dropped with p = 0.3).
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

/**
 * The teacher as an {@linkcode AgentPolicy}: it reads each episode's task
 * (its sub-questions) and turn count, not the context.
 *
 * Source: scripted demonstrations for SFT (MiniMind's agent SFT data, MemPO's cold start).
 *
 * @param tokenizer The tokenizer.
 * @param options Drop probability and seed.
 * @returns The policy; its turns have log-prob 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { createTeacher } from "./teacher.ts";
 *
 * assert.equal(typeof createTeacher(buildTokenizer(["x"])).nextTurns, "function");
 * ```
 */
export function createTeacher(tokenizer: Tokenizer, options: TeacherOptions = {}): AgentPolicy {
  const { dropProbability = 0.3, seed = 0 } = options;
  if (!(dropProbability >= 0 && dropProbability <= 1)) {
    throw new RangeError(`Invalid teacher: dropProbability must be in [0, 1], current value is ${dropProbability}`);
  }
  return {
    nextTurns(requests: readonly TurnRequest[]): Promise<TurnOutput[]> {
      return Promise.resolve(requests.map(({ episode }) => {
        const subs = episode.task.subQuestions;
        if (subs === undefined) throw new TypeError(`The teacher needs task.subQuestions (episode ${episode.id})`);
        const dropped = droppedObjectives(episode.task.question, subs.length, { dropProbability, seed });
        const t = teacherTurn(subs, episode.turns.length, dropped);
        const text = t === null
          ? "</mem>"
          : `${t.mem} </mem> <think> ${t.think} </think> <${t.action}> ${t.content} </${t.action}>`;
        const tokens = encode(tokenizer, text).ids;
        return { tokens, logProbs: tokens.map(() => 0) };
      }));
    },
  };
}

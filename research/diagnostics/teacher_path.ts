/**
 * Where a greedy policy leaves the scripted teacher's path. Each turn of the
 * teacher's episodes is generated greedily from the teacher's own context
 * of that turn and compared whole with the teacher's turn. An episode whose
 * every turn comes out exact is the one the free-running greedy policy
 * reproduces (each of its contexts is then the teacher's); in every other
 * one, the first turn that is not exact is where the free run leaves the
 * path, and the part of that turn where the first token differs (the
 * memory's open objectives, its answers, or the think and action after
 * `</mem>`) is the step that starts the error. Teacher-forced token
 * accuracy hides this: 96 % of a turn's tokens right can be 40 % of its
 * turns exact.
 *
 * @module
 */
import type { Tokenizer } from "../../lib/text/tokenizer.ts";
import type { Model } from "../../lib/model/params.ts";
import type { AgentPolicy, Episode, EpisodeTurn } from "../../lib/env/rollout.ts";
import { turnStopIds } from "../../lib/env/rollout.ts";
import { teacherForcedArgmax } from "./teacher_forced.ts";
import { RELATION_WORDS } from "../../lib/env/world.ts";

/** The parts of a state memory's turn, in the order the teacher writes them. */
export const TURN_PARTS = ["open", "answers", "action"] as const;

/** One part of a turn: the memory's open objectives, its answers, or the think and action after `</mem>`. */
export type TurnPart = typeof TURN_PARTS[number];

/** The turns of one turn index (0 = the first turn) of the episodes probed. */
export interface PathTurn {
  /** Turn index, from 0. */
  turn: number;
  /** Episodes with a turn of this index. */
  total: number;
  /** Of them, turns generated exactly as the teacher's. */
  exact: number;
  /** Episodes whose first inexact turn is this one, by the part where its first token differs. */
  first: Record<TurnPart, number>;
}

/** Where one episode leaves the teacher's path: its first inexact turn. */
export interface PathLeave {
  /** The episode's index in the episodes probed. */
  episode: number;
  /** The turn index. */
  turn: number;
  /** The part of the turn where the first token differs. */
  part: TurnPart;
  /** The teacher's word there (`""` past the turn's end). */
  want: string;
  /** The policy's word there (`""` when its output ran out before this token). */
  got: string;
  /** The teacher's word before it (`""` at the turn's start): what a copy of the word is keyed by. */
  after: string;
}

/** {@linkcode teacherPath}'s result for one set of episodes. */
export interface TeacherPath {
  /** Episodes probed. */
  episodes: number;
  /** Of them, episodes every turn of which is exact: those the free-running greedy agent reproduces. */
  onPath: number;
  /** Per turn index, ascending. */
  byTurn: PathTurn[];
  /** The episodes off the path, each where it leaves it, in episode order. */
  leaves: PathLeave[];
}

/**
 * The part of a turn that holds its token `i`: the memory's open
 * objectives (before `|`), its answers (after `|`), or the think and action
 * once `</mem>` is written. A `|` or `</mem>` in the wrong place belongs to
 * the side it ends (a list one item too short or too long).
 *
 * Source: this package (the state memory's layout, `stateTeacherTurn`).
 *
 * @param tokenizer The tokenizer.
 * @param turn The teacher's turn (tokens after the forced `<mem>`).
 * @param i A token index in it (the turn's length: the token after its last).
 * @returns The part.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { partAt } from "./teacher_path.ts";
 *
 * const tok = buildTokenizer(["zorbex born vunom kalmar |"]);
 * const turn = encode(tok, "zorbex born | kalmar </mem> <think> zorbex born </think>").ids;
 * assert.deepEqual([0, 2, 3, 4, 5].map((i) => partAt(tok, turn, i)), ["open", "open", "answers", "answers", "action"]);
 * ```
 */
export function partAt(tokenizer: Tokenizer, turn: readonly number[], i: number): TurnPart {
  const bar = tokenizer.tokens.indexOf("|");
  const close = tokenizer.special("</mem>");
  const before = turn.slice(0, i);
  if (before.includes(close)) return "action";
  return before.includes(bar) ? "answers" : "open";
}

/** Options of {@linkcode teacherPath}. */
export interface TeacherPathOptions {
  /** Tokens per turn at most (the evaluation's). */
  maxTurnTokens: number;
}

/**
 * Each teacher turn written by a policy from the teacher's context of it
 * (the episode so far being the teacher's) and compared whole with the
 * teacher's turn; per turn index, the exact turns and the episodes that
 * leave the teacher's path there, by the part of the turn where the first
 * token differs ({@linkcode partAt}).
 *
 * A model is read greedily in one teacher-forced pass, not generated: the
 * turn greedy decoding writes from a context equals the teacher's turn
 * exactly when the argmax at each of its tokens, given the teacher's tokens
 * before it, is the teacher's token (the turn ends with a stop token), and
 * the two first differ at the first token where the argmax does not.
 *
 * ```text
 * for each episode e, turn t:  got = policy(e.turns[t].context)   (a model: teacher-forced argmax)
 *                              exact[t] += (got == e.turns[t].sampled)
 * first inexact turn of e:     first[t][partAt(first differing token)] += 1
 * onPath = episodes with no inexact turn
 * ```
 *
 * Source: this package (the exposure-bias reading of DAgger, Ross et al. 2011: a policy's error compounds once its
 * own output leaves the states it was trained on).
 *
 * @param policy The policy: a model (greedy), or an agent policy (deterministic, to read the path of a scripted one).
 * @param tokenizer The tokenizer.
 * @param episodes The scripted teacher's episodes (memory context).
 * @param options The turn budget.
 * @returns The path.
 *
 * @example A model that has learned nothing leaves the path at its first turn; the teacher never does
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../../lib/data/build.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createTeacher } from "../../lib/env/teacher.ts";
 * import { teacherDemonstrations } from "../../lib/train/demos.ts";
 * import { teacherPath } from "./teacher_path.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 4, testCount: 2, testObjectives: [2], sizes: { distractors: 0 } });
 * const data = await loadData(dir);
 * const { episodes } = await teacherDemonstrations(data, { count: 2, dropProbability: 0, seed: 0, policies: ["memory"], records: data.test.get(2)! });
 * const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
 * const path = await teacherPath(model, data.tokenizer, episodes, { maxTurnTokens: 64 });
 * assert.deepEqual([path.episodes, path.onPath, path.byTurn[0]!.total, path.byTurn[0]!.exact], [2, 0, 2, 0]);
 * assert.equal(Object.values(path.byTurn[0]!.first).reduce((a, b) => a + b, 0), 2);
 * const teacher = await teacherPath(createTeacher(data.tokenizer, { dropProbability: 0 }), data.tokenizer, episodes, { maxTurnTokens: 64 });
 * assert.equal(teacher.onPath, 2);
 * model.dispose();
 * ```
 */
export async function teacherPath(
  policy: Model | AgentPolicy,
  tokenizer: Tokenizer,
  episodes: readonly Episode[],
  options: TeacherPathOptions,
): Promise<TeacherPath> {
  const { maxTurnTokens } = options;
  const turns = episodes.flatMap((e, episode) => e.turns.map((turn, t) => ({ e, episode, t, turn })));
  const written = "nextTurns" in policy
    ? (await policy.nextTurns(
      turns.map(({ e, t, turn }) => ({
        episode: { ...e, turns: e.turns.slice(0, t), done: false },
        context: turn.context,
      })),
      { maxNewTokens: maxTurnTokens, stopIds: turnStopIds(tokenizer), seed: 0 },
    )).map((o) => o.tokens.slice(0, maxTurnTokens))
    : await greedyTurns(policy, tokenizer, turns.map(({ turn }) => turn));
  const byTurn: PathTurn[] = [];
  const firstOff = new Map<number, PathLeave>();
  const word = (ids: readonly number[], i: number) => (i >= 0 && i < ids.length ? tokenizer.tokens[ids[i]!] ?? "" : "");
  turns.forEach(({ episode, t, turn }, n) => {
    const want = turn.sampled;
    const got = written[n]!;
    byTurn[t] ??= { turn: t, total: 0, exact: 0, first: { open: 0, answers: 0, action: 0 } };
    byTurn[t].total += 1;
    let i = 0;
    while (i < want.length && i < got.length && want[i] === got[i]) i++;
    if (i === want.length && i === got.length) {
      byTurn[t].exact += 1;
      return;
    }
    if (!firstOff.has(episode)) { // an episode's turns come in order: this is its first inexact one
      const part = partAt(tokenizer, want, i);
      firstOff.set(episode, {
        episode,
        turn: t,
        part,
        want: word(want, i),
        got: word(got, i),
        after: word(want, i - 1),
      });
    }
  });
  const leaves = [...firstOff.values()].sort((a, b) => a.episode - b.episode);
  for (const { turn, part } of leaves) byTurn[turn]!.first[part] += 1;
  return { episodes: episodes.length, onPath: episodes.length - leaves.length, byTurn, leaves };
}

/**
 * What greedy decoding writes from each turn's context, read from one
 * teacher-forced pass: the turn's tokens up to and including the first
 * whose argmax is not the turn's own (the whole turn when there is none).
 */
async function greedyTurns(model: Model, tokenizer: Tokenizer, turns: readonly EpisodeTurn[]): Promise<number[][]> {
  const argmax = await teacherForcedArgmax(
    model,
    tokenizer,
    turns.map((turn) => {
      const tokens = [...turn.context, ...turn.sampled];
      return { tokens, lossMask: tokens.map(() => 0) };
    }),
  );
  return turns.map((turn, n) => {
    const out: number[] = [];
    for (const [j, token] of turn.sampled.entries()) {
      out.push(argmax[n]![turn.context.length + j]!);
      if (out[j] !== token) break;
    }
    return out;
  });
}

/** The column heads of {@linkcode pathCells}. */
export const PATH_COLUMNS = [
  "on the teacher's path",
  "turns exact, by turn",
  "first off the path: open / answers / action",
] as const;

/**
 * A path as table cells ({@linkcode PATH_COLUMNS}): the share of episodes on
 * the teacher's path, the share of exact turns at each turn index the
 * episodes have, and the episodes that leave the path, summed over turns by
 * the part where they leave it.
 *
 * Source: this package.
 *
 * @param path The path.
 * @returns Three cells.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathCells } from "./teacher_path.ts";
 *
 * const first = (open: number) => ({ open, answers: 0, action: 0 });
 * const path = { episodes: 4, onPath: 1, byTurn: [{ turn: 0, total: 4, exact: 2, first: first(2) }, { turn: 1, total: 4, exact: 3, first: { open: 0, answers: 1, action: 0 } }], leaves: [] };
 * assert.deepEqual(pathCells(path), ["25% (4)", "50 / 75%", "2 / 1 / 0"]);
 * ```
 */
export function pathCells(path: TeacherPath): string[] {
  const pct = (n: number, d: number) => (d === 0 ? "–" : (100 * n / d).toFixed(0));
  const off = TURN_PARTS.map((p) => path.byTurn.reduce((n, t) => n + t.first[p], 0));
  return [
    `${pct(path.onPath, path.episodes)}% (${path.episodes})`,
    `${path.byTurn.map((t) => pct(t.exact, t.total)).join(" / ")}%`,
    off.join(" / "),
  ];
}

/** The kinds of word a leave's first differing word follows ({@linkcode afterKind}). */
export const AFTER_KINDS = ["start", "|", ";", "relation", "name", "other"] as const;

/** One kind of {@linkcode AFTER_KINDS}. */
export type AfterKind = typeof AFTER_KINDS[number];

/**
 * The kind of the word a leave's first differing word follows: the turn's
 * start, `|`, `;`, a relation word, an entity name, or any other word. A
 * copy keyed by a name (unique in the list) has one successor to find; one
 * keyed by `;` or a relation word, which every item repeats, has to look
 * further back.
 *
 * Source: this package (induction heads, Olsson et al. 2022: `[A][B] … [A] → [B]` is unambiguous when `[A]` is).
 *
 * @param leave The leave.
 * @param names The entity names.
 * @returns The kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { afterKind } from "./teacher_path.ts";
 *
 * const leave = (after: string) => ({ episode: 0, turn: 1, part: "open" as const, want: "vunom", got: "olvan", after });
 * const names = new Set(["zorbex"]);
 * assert.deepEqual(["", ";", "born", "zorbex", "<think>"].map((w) => afterKind(leave(w), names)), ["start", ";", "relation", "name", "other"]);
 * ```
 */
export function afterKind(leave: PathLeave, names: ReadonlySet<string>): AfterKind {
  const w = leave.after;
  if (w === "") return "start";
  if (w === "|" || w === ";") return w;
  if (RELATION_WORDS.has(w)) return "relation";
  return names.has(w) ? "name" : "other";
}

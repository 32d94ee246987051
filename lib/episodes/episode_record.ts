/**
 * An episode as a run keeps it (`episodes/*.jsonl`, one record a line): the
 * question, the gold answer, each turn's tokens, the context it was written
 * under, the tool's answer, and for RL each token's advantage with the turn's
 * memory credit (A^M, R^M, P_mem, P_full). Everything is plain JSON: a record
 * crosses a worker's message and a line of a file alike.
 *
 * A turn's context is kept by reference when it is what the chat template
 * makes of the episode itself (the header or the system message, then turns
 * `from` … k − 1 and their tool answers, then the forced `<|assistant|> <mem>`);
 * only a context that is not is kept as text. Token ids are kept as their
 * words (the run's tokenizer is word-level).
 *
 * @module
 */
import type { ContextPolicy } from "../env/context.ts";
import { chatTemplate } from "../env/context.ts";
import type { Episode } from "../env/rollout.ts";
import { normalizeTargets } from "../env/reward.ts";
import { decode, type Tokenizer } from "../text/tokenizer.ts";

/** Version of the record layout (a reader refuses others). */
export const EPISODE_RECORD_VERSION = 1;

/** One turn of an {@linkcode EpisodeRecord}. */
export interface TurnRecord {
  /** What the context starts with: the system message and the question, or the system message alone (`questionOnce`). */
  head: "question" | "system";
  /** The context holds this turn's earlier turns from this index on (`droppedTurns`). */
  from: number;
  /** Tokens of the context. */
  contextTokens: number;
  /** The context as text, only where it is not the head, turns `from`…k − 1 and the forced prefix. */
  context?: string;
  /** The sampled tokens (after the forced `<mem>`), as words. */
  tokens: string[];
  /** The tool's answer after the turn (`<|user|> <information> … <|end|>`), absent after an answer or a failure. */
  tool?: string;
  /** `[start, end)` in `tokens` of the memory and its `</mem>`. */
  memSpan?: [number, number];
  /** The advantage of each sampled token in the update (RL; absent on a turn no loss covers: a teacher's, or empty). */
  advantages?: number[];
  /** A^M of the turn's memory (MemPO; null: no memory credit). */
  memAdvantage?: number | null;
  /** R^M = P_mem − P_full of the turn's memory (MemPO). */
  memReward?: number | null;
  /** P_mem: the gold answer's probability given the memory alone (MemPO). */
  pMem?: number | null;
  /** P_full: the gold answer's probability given the whole history (MemPO). */
  pFull?: number | null;
}

/** Where an episode first leaves the scripted teacher's path ({@link ./teacher_leave.ts}). */
export interface TeacherLeaveRecord {
  /** The turn (0 = first). */
  turn: number;
  /** The first token of the turn that differs. */
  token: number;
  /** The teacher's word there (`""` past its turn's end). */
  want: string;
  /** The policy's word there (`""` past the policy's turn's end). */
  got: string;
}

/** One episode as a run keeps it. */
export interface EpisodeRecord {
  /** {@linkcode EPISODE_RECORD_VERSION}. */
  v: number;
  /** `eval`, or the RL algorithm whose step sampled it. */
  stage: string;
  /** The RL step (RL records only). */
  step?: number;
  /** The question's index in its test set (eval), or the episode's index in the step's batch (RL). */
  index: number;
  /** The prompt group (RL: the episodes of one question share it). */
  group?: string | number;
  /** The agent's name (`SFT`, `MemPO`, `Teacher`; RL: the algorithm's agent). */
  agent: string;
  /** The context policy. */
  contextPolicy: ContextPolicy;
  /** Objectives of the question. */
  objectives: number;
  /** The question. */
  question: string;
  /** The context's head as the policy read it: system message, then the question (`<unk>` for words out of the vocabulary). */
  header: string;
  /** Gold aliases per objective. */
  gold: string[][];
  /** The answer given, or null. */
  answer: string | null;
  /** EM per objective. */
  em: number[];
  /** F1 per objective. */
  f1: number[];
  /** Whether the whole trajectory had a valid format. */
  formatValid: boolean;
  /** Why it ended without a valid answer. */
  error?: string;
  /** The outcome reward. */
  reward: number;
  /** Σ over turns of context + generated tokens. */
  totalTokens: number;
  /** Largest context + generated tokens of a turn. */
  peakContext: number;
  /** The first turn RL learns (earlier ones are a scripted teacher's). */
  learnFrom?: number;
  /** A^T, the episode's outcome advantage (GRPO, MemPO). */
  outcomeAdvantage?: number;
  /** Where the episode first left the teacher's path (null: it never did; absent: not computed). */
  leave?: TeacherLeaveRecord | null;
  /** The turns. */
  turns: TurnRecord[];
}

/** Who an episode is (the fields {@linkcode episodeRecord} cannot read off the episode). */
export type EpisodeIdentity = Pick<EpisodeRecord, "stage" | "index" | "agent" | "contextPolicy"> & {
  /** The RL step. */
  step?: number;
};

/** The RL numbers of one episode ({@linkcode episodeRecord}). */
export interface EpisodeCredit {
  /** A^T. */
  outcomeAdvantage?: number;
  /** Per turn, each sampled token's advantage (undefined: no loss on the turn). */
  advantages?: readonly (readonly number[] | undefined)[];
  /** Per turn A^M, R^M, P_mem, P_full (null: not credited). */
  memAdvantage?: readonly (number | null)[];
  /** R^M per turn. */
  memReward?: readonly (number | null)[];
  /** P_mem per turn. */
  pMem?: readonly (number | null)[];
  /** P_full per turn. */
  pFull?: readonly (number | null)[];
}

// numbers kept to 6 significant digits: the page and the notebooks show 2-3 (a record of an RL step is ~1/3 smaller)
const short = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(6)) : x);
const shortOrNull = (x: number | null | undefined) => (x === null || x === undefined ? null : short(x));

/**
 * The record of a finished episode: its question, gold answer, outcome and
 * turns, each turn's context by reference where the chat template makes it
 * from the episode itself (checked token for token), else as text.
 *
 * ```text
 * context_k = head + Σ_{s=from}^{k−1} (<|assistant|> <mem> sampled_s <|end|> tool_s) + <|assistant|> <mem>
 *   head = header(question) | system                                  (kept: head, from, contextTokens)
 * any other context                                                     (kept: its text)
 * ```
 *
 * Source: this package (the run's episode log, `deno task view`).
 *
 * @param episode The episode.
 * @param tokenizer The tokenizer it was run with.
 * @param identity Stage, index, agent, context policy (and RL step).
 * @param credit The RL numbers (advantages, memory credit), when there are any.
 * @returns The record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { runEpisodes } from "../env/rollout.ts";
 * import { tasksFromRecords } from "../train/demos.ts";
 * import { episodeRecord } from "./episode_record.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 1, testObjectives: [2] });
 * const data = await loadData(dir);
 * const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
 * const [ep] = await runEpisodes(teacher, tasksFromRecords(data.test.get(2)!), data, { contextPolicy: "memory", maxTurns: 12 });
 * const r = episodeRecord(ep!, data.tokenizer, { stage: "eval", index: 0, agent: "Teacher", contextPolicy: "memory" });
 * assert.equal(r.reward, 1);
 * assert.deepEqual(r.turns.map((t) => t.from), r.turns.map((_, k) => Math.max(0, k - 1))); // the memory context: the last turn
 * assert.ok(r.turns.every((t) => t.context === undefined)); // every context by reference
 * assert.equal(r.turns[0]!.tokens.join(" "), ep!.turns[0]!.text.replace(/^<mem> /, ""));
 * ```
 */
export function episodeRecord(
  episode: Episode,
  tokenizer: Tokenizer,
  identity: EpisodeIdentity,
  credit: EpisodeCredit = {},
): EpisodeRecord {
  const template = chatTemplate(tokenizer);
  const header = template.header(episode.task.question);
  const piece = (k: number) => [
    ...template.turnPrefix,
    ...episode.turns[k]!.sampled,
    ...template.turnEnd,
    ...episode.turns[k]!.tool,
  ];
  const words = (ids: readonly number[]) => ids.map((i) => tokenizer.tokens[i] ?? "<unk>");
  const turns = episode.turns.map((t, k): TurnRecord => {
    const from = t.droppedTurns;
    const rest = Array.from({ length: Math.max(0, k - from) }, (_, j) => piece(from + j)).flat();
    const same = (head: readonly number[]) => {
      const built = [...head, ...rest, ...template.turnPrefix];
      return built.length === t.context.length && built.every((id, i) => id === t.context[i]);
    };
    const head = same(header) ? "question" : same(template.system) ? "system" : undefined;
    const adv = credit.advantages?.[k];
    return {
      head: head ?? "question",
      from,
      contextTokens: t.context.length,
      ...(head === undefined ? { context: decode(tokenizer, t.context) } : {}),
      tokens: words(t.sampled),
      ...(t.tool.length > 0 ? { tool: decode(tokenizer, t.tool) } : {}),
      ...(t.memSpan ? { memSpan: [t.memSpan[0], t.memSpan[1]] as [number, number] } : {}),
      ...(adv ? { advantages: adv.map(short) } : {}),
      ...(credit.memAdvantage ? { memAdvantage: shortOrNull(credit.memAdvantage[k]) } : {}),
      ...(credit.memReward ? { memReward: shortOrNull(credit.memReward[k]) } : {}),
      ...(credit.pMem ? { pMem: shortOrNull(credit.pMem[k]) } : {}),
      ...(credit.pFull ? { pFull: shortOrNull(credit.pFull[k]) } : {}),
    };
  });
  return {
    v: EPISODE_RECORD_VERSION,
    stage: identity.stage,
    ...(identity.step !== undefined ? { step: identity.step } : {}),
    index: identity.index,
    ...(identity.stage === "eval" ? {} : { group: episode.task.groupId }),
    agent: identity.agent,
    contextPolicy: identity.contextPolicy,
    objectives: normalizeTargets(episode.task.targets).length,
    question: episode.task.question,
    header: decode(tokenizer, header),
    gold: normalizeTargets(episode.task.targets),
    answer: episode.answer,
    em: episode.score.em,
    f1: episode.score.f1.map(short),
    formatValid: episode.formatValid,
    ...(episode.error !== undefined ? { error: episode.error } : {}),
    reward: episode.reward,
    totalTokens: episode.totalTokens,
    peakContext: episode.peakContext,
    ...(episode.task.learnFrom ? { learnFrom: episode.task.learnFrom } : {}),
    ...(credit.outcomeAdvantage !== undefined ? { outcomeAdvantage: short(credit.outcomeAdvantage) } : {}),
    turns,
  };
}

/**
 * The context turn `k` of a record was written under, as text: the one kept,
 * or the head (system message and question, or the system message alone),
 * the turns it holds with their tool answers, and the forced `<|assistant|>
 * <mem>`.
 *
 * Source: this package (the inverse of {@linkcode episodeRecord}'s reference).
 *
 * @param record The record.
 * @param k The turn.
 * @returns The context's text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { turnContext } from "./episode_record.ts";
 *
 * const turn = (tokens: string[], from: number, tool?: string) => ({ head: "system" as const, from, contextTokens: 0, tokens, tool });
 * const record = { header: "<|system|> s <|end|> <|user|> q ? <|end|>", turns: [turn(["a", "</search>"], 0, "<|user|> i <|end|>"), turn(["b"], 0)] } as never;
 * assert.equal(turnContext(record, 1), "<|system|> s <|end|> <|assistant|> <mem> a </search> <|end|> <|user|> i <|end|> <|assistant|> <mem>");
 * ```
 */
export function turnContext(record: Pick<EpisodeRecord, "header" | "turns">, k: number): string {
  const turn = record.turns[k];
  if (turn === undefined) throw new RangeError(`Cannot show the context: no turn ${k} (${record.turns.length} turns)`);
  if (turn.context !== undefined) return turn.context;
  const cut = record.header.indexOf(" <|user|>");
  const head = turn.head === "system" && cut >= 0 ? record.header.slice(0, cut) : record.header;
  const earlier = record.turns.slice(turn.from, k).map((t) =>
    ["<|assistant|> <mem>", ...t.tokens, "<|end|>", ...(t.tool ? [t.tool] : [])].join(" ")
  );
  return [head, ...earlier, "<|assistant|> <mem>"].join(" ");
}

/**
 * Whether a parsed line is an episode record of this layout (the reader's check).
 *
 * Source: this package.
 *
 * @param x A parsed JSON object.
 * @returns True for a record of {@linkcode EPISODE_RECORD_VERSION} with a stage and turns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isEpisodeRecord } from "./episode_record.ts";
 *
 * assert.equal(isEpisodeRecord({ v: 1, stage: "eval", turns: [] }), true);
 * assert.equal(isEpisodeRecord({ v: 2, stage: "eval", turns: [] }), false);
 * ```
 */
export function isEpisodeRecord(x: Record<string, unknown>): boolean {
  return x.v === EPISODE_RECORD_VERSION && typeof x.stage === "string" && Array.isArray(x.turns);
}

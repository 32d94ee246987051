/**
 * The agent loop: a batched state machine GENERATING → TOOL → GENERATING …
 * → DONE. All active episodes generate their next turn together; each turn
 * records the context it was generated under, its sampled tokens and their
 * log-probs, and its `<mem>` span. Malformed output ends an episode with
 * reward 0; nothing a policy writes can crash the loop.
 *
 * @module
 */
import { hashSeed } from "../random.ts";
import { decode, type Tokenizer } from "../text/tokenizer.ts";
import { buildContext, chatTemplate, type ContextPolicy, type HistoryTurn } from "./context.ts";
import { type ParsedTurn, parseTurn, validateFormat } from "./format.ts";
import { type AnswerScore, outcomeReward, scoreAnswer, type Targets } from "./reward.ts";
import { formatInformation, type SearchIndex } from "./search.ts";
import type { SubQuestion } from "./questions.ts";

/** A question to run an episode on. */
export interface EpisodeTask {
  /** The question text. */
  question: string;
  /** Gold answers (aliases per objective). */
  targets: Targets;
  /** The prompt group (GRPO/MemPO normalise within it). */
  groupId: string | number;
  /** The sub-questions, when known (the scripted teacher needs them). */
  subQuestions?: readonly SubQuestion[];
  /** The question's own search tool (a question of another world); default the env's. */
  search?: SearchIndex;
  /**
   * The first turn RL learns: the turns before it are a scripted teacher's (`teacherFirst`, a joined task's
   * extraction, `rl.joinShare`) and enter no loss. @default 0
   */
  learnFrom?: number;
}

/** One turn of an episode. */
export interface EpisodeTurn {
  /** Tokens the turn was generated under (ends with the forced `<|assistant|> <mem>`). */
  context: number[];
  /** Sampled tokens (after the forced prefix). */
  sampled: number[];
  /** log π of each sampled token at sampling time (old log-probs). */
  logProbs: number[];
  /** The turn's text, `<mem>` prefix included. */
  text: string;
  /** The parsed turn, when well formed. */
  parsed?: ParsedTurn;
  /** `[start, end)` in `sampled` of the memory content and its `</mem>` (the forced `<mem>` is not sampled). */
  memSpan?: [number, number];
  /** Tool message tokens after this turn (empty after an answer or a failure). */
  tool: number[];
  /** Earlier turns the context left out. */
  droppedTurns: number;
}

/** A finished (or running) episode. */
export interface Episode {
  /** Index in the batch. */
  id: number;
  /** The task. */
  task: EpisodeTask;
  /** Turns so far. */
  turns: EpisodeTurn[];
  /** Whether the episode has ended. */
  done: boolean;
  /** Why it ended without a valid answer (format rule, turn limit, context). */
  error?: string;
  /** Whether the whole trajectory passed `validateFormat`. */
  formatValid: boolean;
  /** The answer given, or null. */
  answer: string | null;
  /** Per-objective scores. */
  score: AnswerScore;
  /** Outcome reward (1 = valid format and every objective right). */
  reward: number;
  /** Σ over turns of context + generated tokens (compute processed). */
  totalTokens: number;
  /** Largest context + generated tokens of any turn. */
  peakContext: number;
}

/** What a policy is asked for: the next turn of one episode. */
export interface TurnRequest {
  /** The episode (read-only). */
  episode: Readonly<Episode>;
  /** The context tokens. */
  context: readonly number[];
}

/** What a policy returns for one request. */
export interface TurnOutput {
  /** Sampled tokens (should end with `</search>` or `</answer>`). */
  tokens: number[];
  /** Their log-probs (0 for a scripted policy). */
  logProbs: number[];
}

/** Anything that can write turns: the model, a scripted teacher, a test double. */
export interface AgentPolicy {
  /** Next turns for a batch of episodes, in request order. */
  nextTurns(
    requests: readonly TurnRequest[],
    options: { maxNewTokens: number; stopIds: number[]; seed: number },
  ): Promise<TurnOutput[]>;
}

/** The environment of the loop. */
export interface AgentEnv {
  /** The tokenizer. */
  tokenizer: Tokenizer;
  /** The search tool. */
  search: SearchIndex;
  /**
   * The memory context shows the question before the first turn only (`data.questionOnce`,
   * {@linkcode buildContext}'s `questionOnce`). @default false
   */
  questionOnce?: boolean;
}

/** Options of {@linkcode runEpisodes}. */
export interface RolloutOptions {
  /** Context policy. */
  contextPolicy: ContextPolicy;
  /** Turn limit (train 8, eval 64). @default 8 */
  maxTurns?: number;
  /** Tokens per turn at most (an 8-objective answer turn needs ~70). @default 96 */
  maxTurnTokens?: number;
  /** The model's positions (context + turn must fit). @default 2048 */
  maxPositions?: number;
  /** Documents per search. @default 3 */
  topK?: number;
  /** Seed; turn k samples with `hashSeed(seed, k)`. @default 0 */
  seed?: number;
}

/**
 * Whether turn `k` of a task was written by a scripted teacher (before the
 * task's `learnFrom`: a joined task's extraction, `rl.joinShare`): such a
 * turn is no action of the policy, so it gets no loss and no memory credit.
 * The one rule `teacherFirst` routes by and the RL losses skip by.
 *
 * ```text
 * scripted(task, k) = k < task.learnFrom   (learnFrom default 0: every turn the policy's)
 * ```
 *
 * Source: this package (`rl.joinShare`).
 *
 * @param task The episode's task.
 * @param k The turn's index in the episode (0 = first).
 * @returns `true` when the teacher writes turn `k`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scriptedTurn } from "./rollout.ts";
 *
 * assert.deepEqual([0, 1, 2].map((k) => scriptedTurn({ learnFrom: 1 }, k)), [true, false, false]);
 * assert.equal(scriptedTurn({}, 0), false);
 * ```
 */
export function scriptedTurn(task: Pick<EpisodeTask, "learnFrom">, k: number): boolean {
  return k < (task.learnFrom ?? 0);
}

/**
 * The tokens that end a turn's generation, in this order: `</search>`, `</answer>` (the two that close an action),
 * `<|end|>` and the end of text.
 *
 * Source: verl `ToolAgentLoop` (a turn's generation stops at the tool call's closing tag).
 *
 * @param tokenizer The tokenizer.
 * @returns The token ids.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { turnStopIds } from "./rollout.ts";
 *
 * const tokenizer = buildTokenizer(["zorbex"]);
 * assert.deepEqual(turnStopIds(tokenizer).slice(0, 2), [tokenizer.special("</search>"), tokenizer.special("</answer>")]);
 * ```
 */
export function turnStopIds(tokenizer: Tokenizer): number[] {
  return [
    tokenizer.special("</search>"),
    tokenizer.special("</answer>"),
    tokenizer.special("<|end|>"),
    tokenizer.eosId,
  ];
}

function emptyScore(targets: Targets): AnswerScore {
  return scoreAnswer(null, targets);
}

/**
 * Runs a batch of episodes to the end (answer, format error, turn limit).
 *
 * ```text
 * while some episode is active and turn < maxTurns:
 *   contexts ← buildContext(policy) for the active episodes
 *   turns    ← agent.nextTurns(contexts)                   (one batched generation)
 *   per episode: parse; search → tool result; answer → score; malformed → reward 0
 * ```
 *
 * Source: MemPO / MEM1 agent loop; Search-R1 multi-turn rollout (Jin et al. 2025, arXiv:2503.09516).
 * Reference: verl `ToolAgentLoop`; MiniMind `train_agent.py` rollout.
 *
 * @param agent The policy writing turns.
 * @param tasks The questions.
 * @param env Tokenizer and search tool.
 * @param options Context policy, limits, seed.
 * @returns Finished episodes, in task order.
 *
 * @example A policy that writes garbage ends every episode with reward 0
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { buildSearchIndex } from "./search.ts";
 * import { runEpisodes } from "./rollout.ts";
 *
 * const tokenizer = buildTokenizer(["zorbex born kalmar"]);
 * const search = buildSearchIndex([{ id: "zorbex", text: "zorbex born kalmar" }]);
 * const garbage = { nextTurns: (reqs: readonly unknown[]) => Promise.resolve(reqs.map(() => ({ tokens: [9, 9, 9], logProbs: [0, 0, 0] }))) };
 * const [ep] = await runEpisodes(garbage, [{ question: "q", targets: "kalmar", groupId: 0 }], { tokenizer, search }, { contextPolicy: "memory" });
 * assert.equal(ep!.reward, 0);
 * assert.match(ep!.error!, /turn 1/);
 * ```
 */
export async function runEpisodes(
  agent: AgentPolicy,
  tasks: readonly EpisodeTask[],
  env: AgentEnv,
  options: RolloutOptions,
): Promise<Episode[]> {
  const { contextPolicy, maxTurns = 8, maxTurnTokens = 96, maxPositions = 2048, topK = 3, seed = 0 } = options;
  if (contextPolicy !== "full" && contextPolicy !== "memory") {
    throw new RangeError(
      `Cannot run episodes: contextPolicy must be "full" or "memory", current value is ${
        JSON.stringify(contextPolicy)
      }`,
    );
  }
  for (const [k, v] of Object.entries({ maxTurns, maxTurnTokens, maxPositions, topK })) {
    if (!Number.isInteger(v) || v < 1) {
      throw new RangeError(`Cannot run episodes: ${k} must be a positive integer, current value is ${v}`);
    }
  }
  const { tokenizer, search } = env;
  const template = chatTemplate(tokenizer);
  const stopIds = turnStopIds(tokenizer);
  const closing = new Set(stopIds.slice(0, 2));
  const memClose = tokenizer.special("</mem>");
  const episodes: Episode[] = tasks.map((task, id) => ({
    id,
    task,
    turns: [],
    done: false,
    formatValid: false,
    answer: null,
    score: emptyScore(task.targets),
    reward: 0,
    totalTokens: 0,
    peakContext: 0,
  }));
  const headers = tasks.map((t) => template.header(t.question));
  const fail = (e: Episode, reason: string) => {
    e.done = true;
    e.error = reason;
    e.formatValid = false;
    e.reward = 0;
  };

  for (let turn = 0; turn < maxTurns; turn++) {
    const active = episodes.filter((e) => !e.done);
    if (active.length === 0) break;
    const requests: TurnRequest[] = [];
    const built = new Map<number, { tokens: number[]; droppedTurns: number }>();
    for (const e of active) {
      const history: HistoryTurn[] = e.turns.map((t) => ({
        assistant: [...template.turnPrefix, ...t.sampled],
        tool: t.tool,
      }));
      try {
        const b = buildContext(headers[e.id]!, history, template, {
          policy: contextPolicy,
          maxTokens: maxPositions - maxTurnTokens,
          questionOnce: env.questionOnce ?? false,
        });
        built.set(e.id, b);
        requests.push({ episode: e, context: b.tokens });
      } catch (err) {
        fail(e, `turn ${turn + 1}: ${(err as Error).message}`);
      }
    }
    if (requests.length === 0) break;
    const outputs = await agent.nextTurns(requests, {
      maxNewTokens: maxTurnTokens,
      stopIds,
      seed: hashSeed(seed, turn),
    });
    requests.forEach((req, i) => {
      const e = episodes[req.episode.id]!;
      const out = outputs[i] ?? { tokens: [], logProbs: [] };
      const sampled = out.tokens.slice(0, maxTurnTokens);
      const logProbs = out.logProbs.slice(0, sampled.length);
      while (logProbs.length < sampled.length) logProbs.push(0);
      const b = built.get(e.id)!;
      e.totalTokens += b.tokens.length + sampled.length;
      e.peakContext = Math.max(e.peakContext, b.tokens.length + sampled.length);
      let text: string;
      try {
        text = `<mem> ${decode(tokenizer, sampled)}`;
      } catch (err) {
        e.turns.push({ context: b.tokens, sampled, logProbs, text: "", tool: [], droppedTurns: b.droppedTurns });
        return fail(e, `turn ${turn + 1}: ${(err as Error).message}`);
      }
      const closeAt = sampled.indexOf(memClose);
      const record: EpisodeTurn = {
        context: b.tokens,
        sampled,
        logProbs,
        text,
        tool: [],
        droppedTurns: b.droppedTurns,
        ...(closeAt >= 0 ? { memSpan: [0, closeAt + 1] as [number, number] } : {}),
      };
      e.turns.push(record);
      if (sampled.length === 0 || !closing.has(sampled.at(-1)!)) {
        return fail(e, `turn ${turn + 1}: the turn did not end with </search> or </answer> (${sampled.length} tokens)`);
      }
      const parsed = parseTurn(text);
      if (!parsed.ok) return fail(e, `turn ${turn + 1}: ${parsed.reason}`);
      record.parsed = parsed.value;
      if (parsed.value.action === "search") {
        if (turn === maxTurns - 1) return fail(e, `turn ${turn + 1}: reached maxTurns ${maxTurns} without an answer`);
        const tool = e.task.search ?? search;
        record.tool = template.toolMessage(formatInformation(tool.search(parsed.value.content, topK)));
        return;
      }
      e.done = true;
      const check = validateFormat(e.turns.map((t) => t.text));
      e.formatValid = check.ok;
      if (!check.ok) e.error = check.reason;
      e.answer = parsed.value.content;
      e.score = scoreAnswer(e.answer, e.task.targets);
      e.reward = outcomeReward(e.formatValid, e.score);
    });
  }
  for (const e of episodes) if (!e.done) fail(e, `reached maxTurns ${maxTurns} without an answer`);
  return episodes;
}

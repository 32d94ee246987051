/**
 * The inputs of MemPO's memory reward for an episode: for every turn t ≥ 2
 * with a `<mem>` span, a memory-only context and a full-history context,
 * both ending with the turn's `<mem>…</mem>`, and the gold-answer
 * continuation with its answer mask.
 *
 * @module
 */
import { encode, type Tokenizer } from "../text/tokenizer.ts";
import { chatTemplate } from "./context.ts";
import { normalizeTargets } from "./reward.ts";
import type { Episode } from "./rollout.ts";

/** One scoring request of the memory reward. */
export interface MemoryRewardPair {
  /** Episode id. */
  episode: number;
  /** Turn index (≥ 1, i.e. the second turn or later). */
  turn: number;
  /** system + question + `<|assistant|> <mem> mem_t </mem>`. */
  memContext: number[];
  /** Full history before turn t + `<|assistant|> <mem> mem_t </mem>`. */
  fullContext: number[];
  /** `<think> answer </think> <answer> g1 ; g2 </answer>`. */
  continuation: number[];
  /** 1 on gold-answer tokens of `continuation`, 0 on tags and separators. */
  answerMask: number[];
}

/**
 * The gold continuation and its answer mask: first alias of each objective,
 * joined by ";".
 *
 * Source: MemPO `_postprocess` (ans_mask over the answer tokens only).
 *
 * @param tokenizer The tokenizer.
 * @param targets Gold answers.
 * @returns Continuation tokens and mask.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { goldContinuation } from "./memory_inputs.ts";
 *
 * const tok = buildTokenizer(["answer kalmar vestria ;"]);
 * assert.deepEqual(goldContinuation(tok, [["kalmar"], ["vestria"]]).answerMask, [0, 0, 0, 0, 1, 0, 1, 0]);
 * ```
 */
export function goldContinuation(
  tokenizer: Tokenizer,
  targets: readonly (readonly string[])[],
): { continuation: number[]; answerMask: number[] } {
  const ids = (t: string) => encode(tokenizer, t).ids;
  const continuation = ids("<think> answer </think> <answer>");
  const answerMask = continuation.map(() => 0);
  targets.forEach((aliases, i) => {
    if (i > 0) {
      const sep = ids(";");
      continuation.push(...sep);
      answerMask.push(...sep.map(() => 0));
    }
    const gold = ids(aliases[0]!);
    continuation.push(...gold);
    answerMask.push(...gold.map(() => 1));
  });
  const close = ids("</answer>");
  continuation.push(...close);
  answerMask.push(...close.map(() => 0));
  return { continuation, answerMask };
}

/**
 * Memory-reward scoring pairs for every turn t ≥ 2 that wrote a `<mem>` span.
 *
 * ```text
 * memContext(t)  = header + <|assistant|> <mem> mem_t </mem>
 * fullContext(t) = header + Σ_{s<t} (turn_s + <|end|> + tool_s) + <|assistant|> <mem> mem_t </mem>
 * ```
 *
 * Source: MemPO (arXiv:2603.00680) and its released code (`ToolAgentLoop` collects `mem_traj` = system + question +
 * the turn up to `</mem>`, and `full_traj` = the history before the turn).
 *
 * @param episode A finished episode.
 * @param tokenizer The tokenizer.
 * @param maxPositions Pairs longer than this are skipped (they cannot be scored).
 * @returns Pairs (possibly none).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { memoryRewardPairs } from "./memory_inputs.ts";
 *
 * const tok = buildTokenizer(["q a"]);
 * const ep = { id: 0, task: { question: "q", targets: "a", groupId: 0 }, turns: [] } as never;
 * assert.deepEqual(memoryRewardPairs(ep, tok), []);
 * ```
 */
export function memoryRewardPairs(episode: Episode, tokenizer: Tokenizer, maxPositions = 2048): MemoryRewardPair[] {
  const template = chatTemplate(tokenizer);
  const header = template.header(episode.task.question);
  const { continuation, answerMask } = goldContinuation(tokenizer, normalizeTargets(episode.task.targets));
  const pairs: MemoryRewardPair[] = [];
  const history: number[] = [];
  episode.turns.forEach((turn, t) => {
    if (t >= 1 && turn.memSpan !== undefined) {
      const memBlock = [...template.turnPrefix, ...turn.sampled.slice(turn.memSpan[0], turn.memSpan[1])];
      const fullContext = [...header, ...history, ...memBlock];
      if (fullContext.length + continuation.length <= maxPositions) {
        pairs.push({
          episode: episode.id,
          turn: t,
          memContext: [...header, ...memBlock],
          fullContext,
          continuation,
          answerMask,
        });
      }
    }
    history.push(...template.turnPrefix, ...turn.sampled, ...template.turnEnd, ...turn.tool);
  });
  return pairs;
}

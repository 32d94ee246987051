/**
 * Context policies: which tokens the policy sees before each turn.
 *
 * - `full`: system + question + every earlier turn and tool result (ReAct);
 *   oldest turns are dropped (question kept) only beyond the model's positions.
 * - `memory`: system + question + only the latest turn and its tool result
 *   (MemPO's `prepare_prompt`): everything older must live in `<mem>`. With
 *   `questionOnce` the question too is left out after the first turn (what
 *   the task asks must then live in `<mem>` as well: MEM1's internal state).
 *
 * @module
 */
import { encode, type Tokenizer } from "../text/tokenizer.ts";

/** A context policy name. */
export type ContextPolicy = "full" | "memory";

/** The system instruction every episode starts with. */
export const SYSTEM_PROMPT =
  "answer the questions . each turn : keep what you know in mem , think , then search or answer . answers are separated by ;";

/** One finished turn, as the context builder needs it. */
export interface HistoryTurn {
  /** The assistant turn's tokens: forced prefix (`<|assistant|> <mem>`) + sampled tokens. */
  assistant: readonly number[];
  /** The tool result's tokens (`<|user|> <information>…</information> <|end|>`), empty after an answer. */
  tool: readonly number[];
}

/** The roles of a chat message the template renders with their own marker. */
export type ChatRole = "system" | "user" | "assistant";

/** Token pieces of the chat template. */
export interface ChatTemplate {
  /** `<|role|> content <|end|>`: one message (a role other than system, user or assistant is a `RangeError`). */
  message(role: string, content: string): number[];
  /** `<|system|> SYSTEM <|end|> <|user|> question <|end|>`: `system` + `message("user", question)`. */
  header(question: string): number[];
  /** `<|system|> SYSTEM <|end|>`: `message("system", SYSTEM_PROMPT)`, the header without the question. */
  readonly system: number[];
  /** `<|assistant|> <mem>`: the forced prefix of every turn. */
  readonly turnPrefix: number[];
  /** `<|end|>` after an assistant turn. */
  readonly turnEnd: number[];
  /** `<|user|> {information} <|end|>`: `message("user", information)` (a tool result comes back as the user's turn). */
  toolMessage(information: string): number[];
}

/**
 * The chat template over a tokenizer.
 *
 * ```text
 * <|system|> SYSTEM <|end|> <|user|> q <|end|>
 * <|assistant|> <mem> … </search> <|end|> <|user|> <information> … </information> <|end|>
 * <|assistant|> <mem> …
 * ```
 *
 * Source: ChatML-style role markers (MiniMind's `<|im_start|>` template, renamed).
 *
 * @param tokenizer The tokenizer.
 * @returns Template pieces (token ids).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, decode } from "../text/tokenizer.ts";
 * import { chatTemplate } from "./context.ts";
 *
 * const tok = buildTokenizer(["q"]);
 * assert.equal(decode(tok, chatTemplate(tok).turnPrefix), "<|assistant|> <mem>");
 * assert.equal(decode(tok, chatTemplate(tok).message("user", "q")), "<|user|> q <|end|>");
 * ```
 */
export function chatTemplate(tokenizer: Tokenizer): ChatTemplate {
  const ids = (text: string) => encode(tokenizer, text).ids;
  const roles: readonly string[] = ["system", "user", "assistant"] satisfies ChatRole[];
  const message = (role: string, content: string) => {
    if (!roles.includes(role)) {
      throw new RangeError(
        `Cannot render the message: role must be system, user or assistant, current value is ${JSON.stringify(role)}`,
      );
    }
    return ids(`<|${role}|> ${content} <|end|>`);
  };
  const system = message("system", SYSTEM_PROMPT);
  return {
    message,
    header: (question) => [...system, ...message("user", question)],
    system,
    turnPrefix: ids("<|assistant|> <mem>"),
    turnEnd: ids("<|end|>"),
    toolMessage: (information) => message("user", information),
  };
}

/** Options of {@linkcode buildContext}. */
export interface BuildContextOptions {
  /** The context policy. */
  policy: ContextPolicy;
  /** The longest context allowed (model positions minus the turn's token budget). */
  maxTokens: number;
  /**
   * With the `memory` policy: the question only before the first turn; later contexts start with the system
   * message alone (`data.questionOnce`). @default false
   */
  questionOnce?: boolean;
}

/** A built context and what was dropped to fit. */
export interface BuiltContext {
  /** Token ids, ending with the forced `<|assistant|> <mem>` prefix. */
  tokens: number[];
  /** Earlier turns left out (by the policy or to fit `maxTokens`). */
  droppedTurns: number;
}

/**
 * The context for the next turn under a policy.
 *
 * ```text
 * full:   header + Σ_{s<t} (assistant_s + <|end|> + tool_s) + prefix     (oldest turns dropped to fit)
 * memory: header + assistant_{t−1} + <|end|> + tool_{t−1} + prefix
 * memory, questionOnce (t > 0): system + assistant_{t−1} + <|end|> + tool_{t−1} + prefix
 * ```
 *
 * Source: MemPO `AgentMemory.prepare_prompt` (memory policy); MEM1 (Zhou et
 * al. 2025, arXiv:2506.15841) for a state that holds the task too
 * (`questionOnce`); ReAct (Yao et
 * al. 2023, arXiv:2210.03629) for the full history.
 *
 * @param header `chatTemplate(tok).header(question)`.
 * @param history Finished turns, oldest first.
 * @param template The chat template.
 * @param options Policy and token limit.
 * @returns The context (throws a `RangeError` if even the header does not fit).
 *
 * @example The memory policy keeps only the latest turn
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { buildContext, chatTemplate } from "./context.ts";
 *
 * const tok = buildTokenizer(["q a b"]);
 * const tpl = chatTemplate(tok);
 * const history = [{ assistant: [20], tool: [21] }, { assistant: [22], tool: [23] }];
 * const full = buildContext(tpl.header("q"), history, tpl, { policy: "full", maxTokens: 100 });
 * const mem = buildContext(tpl.header("q"), history, tpl, { policy: "memory", maxTokens: 100 });
 * assert.equal(full.tokens.length - mem.tokens.length, 3);
 * assert.equal(mem.droppedTurns, 1);
 * // with questionOnce the question leaves the memory context after the first turn
 * const once = buildContext(tpl.header("q"), history, tpl, { policy: "memory", maxTokens: 100, questionOnce: true });
 * assert.deepEqual(once.tokens, [...tpl.system, 22, ...tpl.turnEnd, 23, ...tpl.turnPrefix]);
 * const first = buildContext(tpl.header("q"), [], tpl, { policy: "memory", maxTokens: 100, questionOnce: true });
 * assert.deepEqual(first.tokens, [...tpl.header("q"), ...tpl.turnPrefix]);
 * ```
 */
export function buildContext(
  header: readonly number[],
  history: readonly HistoryTurn[],
  template: ChatTemplate,
  options: BuildContextOptions,
): BuiltContext {
  const { policy, maxTokens } = options;
  const head = policy === "memory" && options.questionOnce && history.length > 0 ? template.system : header;
  const base = head.length + template.turnPrefix.length;
  if (base > maxTokens) {
    throw new RangeError(
      `Cannot build the context: the question alone needs ${base} tokens, the limit is ${maxTokens}`,
    );
  }
  const pieces = history.map((h) => [...h.assistant, ...template.turnEnd, ...h.tool]);
  let first = policy === "memory" ? Math.max(0, history.length - 1) : 0;
  let size = base + pieces.slice(first).reduce((a, p) => a + p.length, 0);
  while (size > maxTokens && first < pieces.length) size -= pieces[first++]!.length;
  return {
    tokens: [...head, ...pieces.slice(first).flat(), ...template.turnPrefix],
    droppedTurns: first,
  };
}

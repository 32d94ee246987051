/**
 * The agent's output format and its validation: every assistant turn is
 * `<mem>…</mem><think>…</think>` then exactly one `<search>…</search>` or
 * `<answer>…</answer>`.
 *
 * @module
 */

/** A well-formed turn. */
export interface ParsedTurn {
  /** Content of `<mem>`. */
  mem: string;
  /** Content of `<think>`. */
  think: string;
  /** The action. */
  action: "search" | "answer";
  /** Content of the action tag (the query or the answer). */
  content: string;
}

/** Result of parsing or validating. */
export type FormatCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

const TAG_RE = /<(\/?)(mem|think|search|answer|information)>/g;
const ROLE_RE = /<\|(system|user|assistant|end)\|>|<pad>|<eos>|<unk>/;

/**
 * Parses one assistant turn, or says which rule it breaks.
 *
 * The rules (one place, checked in this order):
 * 1. no tool tags written by the model (`<information>`), no chat-role or
 *    padding markers;
 * 2. tags are balanced and not nested: every opening tag is closed before the next opens;
 * 3. `<mem>` comes first (only whitespace before it);
 * 4. `<think>` follows `</mem>`;
 * 5. exactly one action, `<search>` or `<answer>`, and it follows `</think>`;
 * 6. nothing but whitespace between blocks and after the action's closing tag.
 *
 * Source: MemPO / MEM1 turn format (`<mem>` then reasoning then one action);
 * Search-R1 `validate_format`.
 *
 * @param text The decoded turn (with its forced `<mem>` prefix).
 * @returns The parsed parts, or the broken rule.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseTurn } from "./format.ts";
 *
 * const ok = parseTurn("<mem> none </mem> <think> 1 born zorbex </think> <search> zorbex born </search>");
 * assert.deepEqual(ok, { ok: true, value: { mem: "none", think: "1 born zorbex", action: "search", content: "zorbex born" } });
 * assert.equal(parseTurn("<mem> x </mem> <search> q </search>").ok, false);
 * ```
 */
export function parseTurn(text: string): FormatCheck<ParsedTurn> {
  if (/<\/?information>/.test(text)) return { ok: false, reason: "the model wrote a tool tag (<information>)" };
  if (ROLE_RE.test(text)) return { ok: false, reason: "the model wrote a chat-role or padding marker" };
  const blocks: { tag: string; content: string; before: string }[] = [];
  let open: { tag: string; start: number } | undefined;
  let last = 0;
  for (const m of text.matchAll(TAG_RE)) {
    const [whole, slash, tag] = m as unknown as [string, string, string];
    if (slash === "") {
      if (open !== undefined) {
        return { ok: false, reason: `<${tag}> opened inside <${open.tag}> (nested or unclosed tag)` };
      }
      const before = text.slice(last, m.index);
      open = { tag, start: m.index! + whole.length };
      blocks.push({ tag, content: "", before });
    } else {
      if (open === undefined || open.tag !== tag) return { ok: false, reason: `</${tag}> without a matching <${tag}>` };
      blocks.at(-1)!.content = text.slice(open.start, m.index).trim();
      open = undefined;
      last = m.index! + whole.length;
    }
  }
  if (open !== undefined) return { ok: false, reason: `<${open.tag}> is never closed` };
  if (blocks.some((b) => b.before.trim() !== "")) return { ok: false, reason: "text outside the tags" };
  if (text.slice(last).trim() !== "") return { ok: false, reason: "text after the action's closing tag" };
  const tags = blocks.map((b) => b.tag);
  if (tags[0] !== "mem") return { ok: false, reason: "the turn must start with <mem>" };
  if (tags[1] !== "think") return { ok: false, reason: "<think> must follow </mem>" };
  const actions = tags.slice(2);
  if (actions.length !== 1 || (actions[0] !== "search" && actions[0] !== "answer")) {
    return {
      ok: false,
      reason: `exactly one <search> or <answer> must follow </think>, found ${
        actions.length === 0 ? "none" : actions.join(", ")
      }`,
    };
  }
  return {
    ok: true,
    value: { mem: blocks[0]!.content, think: blocks[1]!.content, action: actions[0], content: blocks[2]!.content },
  };
}

/**
 * Validates a whole trajectory: every turn well-formed, only the last turn
 * answers, and at least one search before the answer.
 *
 * Source: MemPO `validate_format` (rule: at least one search; one action per turn).
 *
 * @param turns Decoded assistant turns, in order.
 * @returns The parsed turns, or the first broken rule (with the turn number).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateFormat } from "./format.ts";
 *
 * const answerOnly = validateFormat(["<mem> none </mem> <think> t </think> <answer> a </answer>"]);
 * assert.deepEqual(answerOnly, { ok: false, reason: "turn 1: answered without any search" });
 * ```
 */
export function validateFormat(turns: readonly string[]): FormatCheck<ParsedTurn[]> {
  if (turns.length === 0) return { ok: false, reason: "no turns" };
  const parsed: ParsedTurn[] = [];
  for (const [i, t] of turns.entries()) {
    const p = parseTurn(t);
    if (!p.ok) return { ok: false, reason: `turn ${i + 1}: ${p.reason}` };
    if (p.value.action === "answer" && i !== turns.length - 1) {
      return { ok: false, reason: `turn ${i + 1}: an answer must end the episode` };
    }
    if (p.value.action === "answer" && !parsed.some((q) => q.action === "search")) {
      return { ok: false, reason: `turn ${i + 1}: answered without any search` };
    }
    parsed.push(p.value);
  }
  if (parsed.at(-1)!.action !== "answer") {
    return { ok: false, reason: `turn ${turns.length}: the episode ended without an answer` };
  }
  return { ok: true, value: parsed };
}

/**
 * The content of the last `<answer>…</answer>` in a text, or `null`.
 *
 * Source: Search-R1 / verl `qa_em.extract_solution`.
 *
 * @param text Any model output.
 * @returns The answer, trimmed, or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extractSolution } from "./format.ts";
 *
 * assert.equal(extractSolution("<answer> a </answer> x <answer> b ; c </answer>"), "b ; c");
 * assert.equal(extractSolution("<answer> open"), null);
 * ```
 */
export function extractSolution(text: string): string | null {
  const all = [...text.matchAll(/<answer>([\s\S]*?)<\/answer>/g)];
  return all.length === 0 ? null : all.at(-1)![1]!.trim();
}

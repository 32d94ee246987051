/**
 * Memory drills: the state memory's first-turn extraction of the open
 * objectives on random names, at list lengths beyond the training
 * questions', as the induction warm-up drills copying on random words. No
 * drill is a question about a world or holds an episode's history: each is
 * one operation on lists of random names, so what a policy learns from them
 * is the operation, not longer tasks.
 *
 * @module
 */
import { createRng, type Rng } from "../random.ts";
import { encode, type Tokenizer } from "../text/tokenizer.ts";
import { TEMPLATES } from "../env/questions.ts";
import { chatTemplate } from "../env/context.ts";
import type { LmSequence } from "./collate.ts";

/** Options of {@linkcode memoryDrillSequences}. */
export interface MemoryDrillOptions {
  /** Sequences. */
  count: number;
  /** Most names in a list (open objectives). @default 10 */
  maxItems?: number;
  /** Seed. @default 0 */
  seed?: number;
  /** No `;` between the items (`sft.teacherMemory: "state-relations-bare"`). @default false */
  bare?: boolean;
}

const TEMPLATE_LIST = Object.values(TEMPLATES).flat();

function draw<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.int(xs.length)]!;
}

/** `k` distinct names. */
function distinct(rng: Rng, names: readonly string[], k: number): string[] {
  const out = new Set<string>();
  while (out.size < k) out.add(draw(rng, names));
  return [...out];
}

/**
 * Drill sequences of the state memory's first turn: a question of 1 to
 * `maxItems` objectives (each a question template's text about a random
 * name), and the memory that follows it, each open item the name and the
 * template's relations, `;` between items (none with `bare`), then the
 * turn's search of the first item's first hop (loss on the memory, `</mem>`
 * and the rest of the turn only):
 *
 * ```text
 * <|user|> n1 was born in which country ? ; n2 has which capital ? <|end|> <|assistant|> <mem>
 *   →  n1 born located ; n2 capital | </mem> <think> n1 born </think> <search> n1 born </search>
 * ```
 *
 * Names are drawn from `names` (the corpus's entities, in random roles).
 *
 * Source: induction heads (Olsson et al. 2022): copying learned on random
 * sequences; MEM1 (arXiv:2506.15841): an internal state updated each turn.
 *
 * @param tokenizer The tokenizer (every name and word must be in it).
 * @param names Entity names to draw from (at least `maxItems + 2`).
 * @param options Count, list length, seed, style.
 * @returns The sequences.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, decode } from "../text/tokenizer.ts";
 * import { memoryDrillSequences } from "./memory_drill.ts";
 *
 * const names = ["a", "b", "c", "d", "e", "f"];
 * const tok = buildTokenizer([names.join(" "), "born located capital founder headquarters director | ;"]);
 * const [drill] = memoryDrillSequences(tok, names, { count: 1, maxItems: 3, seed: 1 });
 * const items = decode(tok, drill!.tokens.filter((_, i) => drill!.lossMask[i] === 1));
 * assert.match(items, /^[a-f]( (born|located|capital|founder|headquarters|director))+( ; [a-f]( [a-z]+)+)* \| <\/mem> <think> [a-f] [a-z]+ <\/think> <search> [a-f] [a-z]+ <\/search>$/);
 * ```
 */
export function memoryDrillSequences(
  tokenizer: Tokenizer,
  names: readonly string[],
  options: MemoryDrillOptions,
): LmSequence[] {
  const { count, maxItems = 10, seed = 0, bare = false } = options;
  if (!Number.isInteger(maxItems) || maxItems < 1 || names.length < maxItems + 2) {
    throw new RangeError(
      `Invalid memory drill: maxItems must be an integer ≥ 1 with more names than maxItems + 1, current value is ${maxItems} (${names.length} names)`,
    );
  }
  const rng = createRng(seed);
  const template = chatTemplate(tokenizer);
  const sep = bare ? " " : " ; ";
  return Array.from({ length: count }, () => {
    const k = 1 + rng.int(maxItems);
    const open = distinct(rng, names, k + 1);
    // an answer list's draws, unused: the drills stay those the released SFT policy was trained on
    Array.from({ length: rng.int(maxItems + 1) }, () => draw(rng, names));
    const paths = open.map(() => draw(rng, TEMPLATE_LIST));
    const parts = open.slice(0, k).map((name, i) => paths[i]!.text.replace("{x}", name));
    const items = open.slice(0, k).map((name, i) => [name, ...paths[i]!.path].join(" "));
    const [name, relation] = items[0]!.split(" ");
    const target = `${
      items.join(sep)
    } | </mem> <think> ${name} ${relation} </think> <search> ${name} ${relation} </search>`;
    const context = [...template.header(parts.join(" ; ")), ...template.turnPrefix];
    const out = encode(tokenizer, target).ids;
    return { tokens: [...context, ...out], lossMask: [...context.map(() => 0), ...out.map(() => 1)] };
  });
}

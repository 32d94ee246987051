/**
 * Memory drills: the state memory's per-turn list operations on random
 * names, at list lengths beyond the training questions', as the induction
 * warm-up drills copying on random words. No drill is a question about a
 * world or holds an episode's history: each is one operation on lists of
 * random names, so what a policy learns from them is the operation, not
 * longer tasks (the full-context agent still never sees a context longer
 * than its 1–4-objective training episodes).
 *
 * @module
 */
import { createRng, type Rng } from "../random.ts";
import { encode, type Tokenizer } from "../text/tokenizer.ts";
import { RELATIONS } from "../env/world.ts";
import { TEMPLATES } from "../env/questions.ts";
import { chatTemplate } from "../env/context.ts";
import type { LmSequence } from "./collate.ts";
import { DRILL_KINDS, type DrillKind } from "../config/experiment.ts";

/** Options of {@linkcode memoryDrillSequences}. */
export interface MemoryDrillOptions {
  /** Sequences. */
  count: number;
  /** Most names in a list (open objectives; answers likewise). @default 10 */
  maxItems?: number;
  /** Seed. @default 0 */
  seed?: number;
  /**
   * The state memory's style (`stateTeacherTurn`'s `relations`): each open
   * objective with the relations left and `;` between items
   * (`sft.teacherMemory: "state-relations"`), or subjects only. @default false
   */
  relations?: boolean;
  /** With `relations`: no `;` between the items and the answers (`sft.teacherMemory: "state-relations-bare"`). @default false */
  bare?: boolean;
  /**
   * The kinds drilled, in turn (`sft.drillKinds`): `["extract"]` drills the first turn's extraction alone, as a
   * run whose later turns are drilled by joined tasks (`sft.joinShare`, with no question in their context) needs.
   * @default all of {@linkcode DRILL_KINDS}
   */
  kinds?: readonly DrillKind[];
}

const RELATION_WORDS = Object.keys(RELATIONS);
// filler around each name of an extraction drill: the templates' own words, in random order (no template whole)
const FILLER = [
  ...new Set(Object.values(TEMPLATES).flat().flatMap((t) => t.text.split(" ")).filter((w) => w !== "{x}" && w !== "?")),
];

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
 * Drill sequences for two of the state memory's operations, each a context
 * and the memory that follows it (loss on the memory and `</mem>` only):
 *
 * ```text
 * extract  <|user|> n1 w w ? ; n2 w w w ? ; … <|end|> <|assistant|> <mem>   →  n1 n2 … nk | </mem>
 * pop      <|assistant|> <mem> h [r] n2 … nk | a1 … am </mem> <think> h r </think> <search> h r </search> <|end|>
 *          <|user|> <information>[Doc 1] h r x . …</information> <|end|> <|assistant|> <mem>   →  n2 … nk | a1 … am x </mem>
 * ```
 *
 * (The head is written as a subject alone or as an entity and its relation,
 * as a state memory holds a 1-hop objective or a 2-hop one after its first hop.)
 *
 * With `relations` they are in the other style of the state memory, and whole
 * turns: each part of an extraction is a question template's text about its
 * name, and each open item is the name and the template's relations; items
 * and answers are separated by `;`; the head of a pop has its one relation
 * left; after the memory the turn searches the new head's next hop, or, with
 * nothing open, answers from memory (so the think's lookup of the memory's
 * head is drilled at every list length too):
 *
 * ```text
 * extract  <|user|> n1 was born in which country ? ; n2 has which capital ? <|end|> <|assistant|> <mem>
 *            →  n1 born located ; n2 capital | </mem> <think> n1 born </think> <search> n1 born </search>
 * pop      <|user|> n0 … ? ; n1 … ? ; h … ? ; n2 … ? <|end|> <|assistant|> <mem> h r ; n2 r2 r3 | a0 ; a1 </mem> …
 *          <information>[Doc 1] h r x . [Doc 2] y r4 h . …</information> … <mem>
 *            →  n2 r2 r3 | a0 ; a1 ; x </mem> <think> n2 r2 </think> <search> n2 r2 </search>
 * ```
 *
 * A pop with relations is a turn of a question of 1 to `maxItems` objectives,
 * some answered (before the head) and the rest open, in the memory context
 * (the question, the previous turn and its information: the head's fact first
 * and two facts about the head, as the search ranks them). (Drills whose
 * answers were as many as random, with no question and the facts shuffled,
 * taught the policy to write the wrong word where the answer is appended:
 * 0 % at every size; docs/research/paper_regime.md.)
 *
 * Names are drawn from `names` (the corpus's entities, in random roles), k
 * from 1 to `maxItems` open items and m from 0 to `maxItems` answers; `w` are
 * the question templates' words in random order; the other documents of the
 * information are random facts of random names.
 *
 * Source: induction heads (Olsson et al. 2022): copying learned on random
 * sequences; MEM1 (arXiv:2506.15841): an internal state updated each turn.
 *
 * @param tokenizer The tokenizer (every name and word must be in it).
 * @param names Entity names to draw from (at least `maxItems + 2`).
 * @param options Count, list length, seed, style.
 * @returns The sequences, kinds in turn (extract, pop, rewrite, extract, …).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, decode } from "../text/tokenizer.ts";
 * import { memoryDrillSequences } from "./memory_drill.ts";
 *
 * const names = ["a", "b", "c", "d", "e", "f"];
 * const tok = buildTokenizer([names.join(" "), "born located capital founder headquarters director | ;"]);
 * const [extract] = memoryDrillSequences(tok, names, { count: 1, maxItems: 3, seed: 1 });
 * const target = extract!.tokens.filter((_, i) => extract!.lossMask[i] === 1);
 * assert.match(decode(tok, target), /^([a-f] ){1,3}\| <\/mem>$/);
 * // with relations: each item is a name and its template's relations
 * const [withRelations] = memoryDrillSequences(tok, names, { count: 1, maxItems: 3, seed: 1, relations: true });
 * const items = decode(tok, withRelations!.tokens.filter((_, i) => withRelations!.lossMask[i] === 1));
 * assert.match(items, /^[a-f]( (born|located|capital|founder|headquarters|director))+( ; [a-f]( [a-z]+)+)* \| <\/mem> <think> [a-f] [a-z]+ <\/think> <search> [a-f] [a-z]+ <\/search>$/);
 * // extractions only: every sequence's memory has an empty answer list
 * const extracts = memoryDrillSequences(tok, names, { count: 4, maxItems: 3, seed: 1, relations: true, kinds: ["extract"] });
 * assert.ok(extracts.every((x) => / \| <\/mem>/.test(decode(tok, x.tokens.filter((_, i) => x.lossMask[i] === 1)))));
 * assert.throws(() => memoryDrillSequences(tok, names, { count: 1, kinds: [] }), /kinds must be a non-empty list of extract, pop/);
 * ```
 */
export function memoryDrillSequences(
  tokenizer: Tokenizer,
  names: readonly string[],
  options: MemoryDrillOptions,
): LmSequence[] {
  const { count, maxItems = 10, seed = 0, relations = false, bare = false, kinds = DRILL_KINDS } = options;
  if (kinds.length === 0 || kinds.some((k) => !DRILL_KINDS.includes(k))) {
    throw new RangeError(
      `Invalid memory drill: kinds must be a non-empty list of ${DRILL_KINDS.join(", ")}, current value is ${
        JSON.stringify(kinds)
      }`,
    );
  }
  if (!Number.isInteger(maxItems) || maxItems < 1 || names.length < maxItems + 2) {
    throw new RangeError(
      `Invalid memory drill: maxItems must be an integer ≥ 1 with more names than maxItems + 1, current value is ${maxItems} (${names.length} names)`,
    );
  }
  const rng = createRng(seed);
  const ids = (text: string) => encode(tokenizer, text).ids;
  const template = chatTemplate(tokenizer);
  const sequence = (context: number[], target: string): LmSequence => {
    const out = ids(target);
    return { tokens: [...context, ...out], lossMask: [...context.map(() => 0), ...out.map(() => 1)] };
  };
  const fact = () => `${draw(rng, names)} ${draw(rng, RELATION_WORDS)} ${draw(rng, names)} .`;
  return Array.from({ length: count }, (_, n) => {
    const kind = kinds[n % kinds.length]!;
    const k = 1 + rng.int(maxItems);
    const open = distinct(rng, names, k + 1);
    const answers = Array.from({ length: rng.int(maxItems + 1) }, () => draw(rng, names));
    // with relations each open item is its name and a template's relations (a drawn template per item)
    const paths = relations ? open.map(() => draw(rng, TEMPLATE_LIST)) : [];
    const sep = relations && !bare ? " ; " : " ";
    const memory = (items: string[], found: string[]) =>
      [items.join(sep), "|", found.join(sep)].filter((p) => p !== "").join(" ");
    // with relations the rest of the turn too: search the new head's next hop, or answer from memory
    const action = (items: string[], found: string[]) => {
      if (items.length === 0) return ` <think> answer </think> <answer> ${found.join(" ; ")} </answer>`;
      const [name, relation] = items[0]!.split(" ");
      return ` <think> ${name} ${relation} </think> <search> ${name} ${relation} </search>`;
    };
    if (kind === "extract") {
      const parts = open.slice(0, k).map((name, i) => {
        if (relations) return paths[i]!.text.replace("{x}", name);
        const filler = Array.from({ length: 2 + rng.int(5) }, () => draw(rng, FILLER));
        return `${name} ${filler.join(" ")} ?`;
      });
      const items = open.slice(0, k).map((name, i) => relations ? [name, ...paths[i]!.path].join(" ") : name);
      const context = [...template.header(parts.join(" ; ")), ...template.turnPrefix];
      return sequence(context, `${memory(items, [])} </mem>${relations ? action(items, []) : ""}`);
    }
    if (relations) return relationsPop();
    // pop: the previous turn searched the head's next hop and the information answers it
    const [head, ...rest] = open.slice(0, k);
    const relation = draw(rng, RELATION_WORDS);
    const found = open[k]!; // a name not in the list
    // a subject, or a 2-hop head after its first hop
    const shown = rng.int(2) === 0 ? head! : `${head} ${relation}`;
    const docs = [`${head} ${relation} ${found} .`, fact(), fact()];
    for (let i = docs.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [docs[i], docs[j]] = [docs[j]!, docs[i]!];
    }
    const context = popContext([], memory([shown, ...rest], answers), head!, relation, docs);
    return sequence(context, `${memory(rest, [...answers, found])} </mem>`);

    /** The memory context of a pop: the header (if any), the previous turn searching `head relation`, its information. */
    function popContext(header: number[], previous: string, head: string, relation: string, docs: string[]): number[] {
      const info = `<information>${docs.map((d, i) => `[Doc ${i + 1}] ${d}`).join("\n")}</information>`;
      return [
        ...header,
        ...template.turnPrefix,
        ...ids(`${previous} </mem> <think> ${head} ${relation} </think> <search> ${head} ${relation} </search>`),
        ...template.turnEnd,
        ...template.toolMessage(info),
        ...template.turnPrefix,
      ];
    }

    // a pop as the relations-style episodes have it: a question of n objectives, m = n − k of them answered and k
    // open, in the memory context (the question, the previous turn, its information); the information lists the
    // head's fact first and two facts about it after, as the search ranks them
    function relationsPop(): LmSequence {
      const total = 1 + rng.int(maxItems);
      const openCount = 1 + rng.int(total);
      const subjects = distinct(rng, names, total + 2);
      const [found, bridge] = [subjects[total]!, subjects[total + 1]!];
      const templates = subjects.slice(0, total).map(() => draw(rng, TEMPLATE_LIST));
      const question = subjects.slice(0, total).map((s, i) => templates[i]!.text.replace("{x}", s)).join(" ; ");
      const done = Array.from({ length: total - openCount }, () => draw(rng, names));
      const first = total - openCount; // the head: a 1-hop subject, or a 2-hop objective's entity after its first hop
      const headPath = templates[first]!.path;
      const [head, relation] = headPath.length === 1 ? [subjects[first]!, headPath[0]!] : [bridge, headPath[1]!];
      const rest = subjects.slice(first + 1, total).map((s, i) => [s, ...templates[first + 1 + i]!.path].join(" "));
      const previous = memory([`${head} ${relation}`, ...rest], done);
      const docs = [
        `${head} ${relation} ${found} .`,
        ...[0, 1].map(() => `${draw(rng, names)} ${draw(rng, RELATION_WORDS)} ${head} .`),
      ];
      const context = popContext(template.header(question), previous, head, relation, docs);
      const after = [...done, found];
      return sequence(context, `${memory(rest, after)} </mem>${action(rest, after)}`);
    }
  });
}

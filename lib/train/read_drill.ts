/**
 * A read drill: one-objective questions on the subjects whose document
 * states two facts of one kind (a person's birthplace and home, a company's
 * founder and headquarters), the relation asked drawn evenly between the
 * two, so that taking a document's first (or last) fact is right half the
 * time and only reading the relation is always right. The teacher's
 * demonstrations of them (`sft.readMix`) add the read the task's questions
 * ask least.
 *
 * @module
 */
import type { QaRecord } from "../data/dataset.ts";
import { createRng } from "../random.ts";
import type { CorpusDocument, Relation } from "../env/world.ts";
import { TEMPLATES } from "../env/questions.ts";

/** The relations a document states two of, in pairs: the read must tell them apart. */
export const TWIN_RELATIONS: readonly (readonly [Relation, Relation])[] = Object.freeze(
  [
    ["born", "lives"],
    ["founder", "headquarters"],
  ] as const,
);

/** Options of {@linkcode readDrillRecords}. */
export interface ReadDrillOptions {
  /** Questions. */
  count: number;
  /** Seed. @default 0 */
  seed?: number;
}

/**
 * One-objective questions asking one of the two facts a document states of
 * its subject, each relation of a pair asked equally often.
 *
 * ```text
 * doc "vunom founder olvan . vunom headquarters tesla ."  →  "vunom was founded by whom ?" → olvan
 *                                                        or  "vunom is headquartered where ?" → tesla   (½ each)
 * ```
 *
 * Source: this package (the task's one-hop templates, `TEMPLATES`).
 *
 * @param corpus The documents drawn from (a world's corpus; one document per entity, facts `s r o .`).
 * @param options Count and seed.
 * @returns Training records with their sub-questions (the scripted teacher's input), in draw order.
 * @throws {RangeError} When no document states both relations of a pair.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readDrillRecords } from "./read_drill.ts";
 *
 * const corpus = [
 *   { id: "vunom", text: "vunom founder olvan . vunom headquarters tesla ." },
 *   { id: "zuvi", text: "zuvi capital lokrodel ." },
 * ];
 * const records = readDrillRecords(corpus, { count: 40, seed: 1 });
 * const asked = records.map((r) => r.subQuestions![0]!.hops[0]!.relation);
 * assert.ok(asked.includes("founder") && asked.includes("headquarters"));
 * assert.deepEqual(records.find((r) => r.targets[0]![0] === "tesla")!.question, "vunom is headquartered where ?");
 * ```
 */
export function readDrillRecords(corpus: readonly CorpusDocument[], options: ReadDrillOptions): QaRecord[] {
  const { count, seed = 0 } = options;
  // every document's subject facts, and its twin pairs
  const twins: { subject: string; facts: [Relation, string][] }[] = [];
  for (const doc of corpus) {
    const facts = new Map<string, string>();
    for (const sentence of doc.text.split(" . ")) {
      const [s, r, o] = sentence.replace(/ \.$/, "").split(" ");
      if (s === doc.id && r !== undefined && o !== undefined) facts.set(r, o);
    }
    for (const [a, b] of TWIN_RELATIONS) {
      if (facts.has(a) && facts.has(b)) {
        twins.push({ subject: doc.id, facts: [[a, facts.get(a)!], [b, facts.get(b)!]] });
      }
    }
  }
  if (twins.length === 0) {
    throw new RangeError(
      "Cannot build a read drill: no document states both relations of a pair (data.sizes.lives 0?)",
    );
  }
  const rng = createRng(seed);
  return Array.from({ length: count }, () => {
    const { subject, facts } = twins[rng.int(twins.length)]!;
    const [relation, answer] = facts[rng.int(2)]!;
    const template = Object.values(TEMPLATES).flat().find((t) => t.path.length === 1 && t.path[0] === relation)!;
    const text = template.text.replace("{x}", subject);
    return {
      prompt: [{ role: "user", content: text }],
      question: text,
      targets: [[answer]],
      subQuestions: [{ text, subject, answer, hops: [{ entity: subject, relation, answer }] }],
    };
  });
}

/**
 * A seeded, invented knowledge world: people, cities, countries, companies
 * and films with relations between them, and one short document per fact.
 * Names are pseudo-words drawn from syllable pools, so no fact can be
 * guessed: the agent has to search and read.
 *
 * @module
 */
import { createRng, hashSeed, hashString, type Rng, shuffled } from "../random.ts";

/** Entity types. */
export type EntityType = "person" | "city" | "country" | "company" | "film";

/** Relations, named by the keyword that appears in the fact's document. */
export type Relation = "born" | "lives" | "located" | "capital" | "founder" | "headquarters" | "director";

/** The type each relation starts from and leads to. */
export const RELATIONS: Readonly<Record<Relation, { from: EntityType; to: EntityType }>> = Object.freeze({
  born: { from: "person", to: "city" },
  lives: { from: "person", to: "city" },
  located: { from: "city", to: "country" },
  capital: { from: "country", to: "city" },
  founder: { from: "company", to: "person" },
  headquarters: { from: "company", to: "city" },
  director: { from: "film", to: "person" },
});

/** The relation words (`born`, `capital`, …): the words of a memory's open item after its entity. */
export const RELATION_WORDS: ReadonlySet<string> = new Set(Object.keys(RELATIONS));

/** One entity and its facts. */
export interface Entity {
  /** Unique lower-case pseudo-word (one token). */
  name: string;
  /** Entity type. */
  type: EntityType;
  /** Facts: relation → name of the related entity. */
  facts: Partial<Record<Relation, string>>;
  /** Distractor sentences' words: `[trait, noun]` pairs ("known for its quiet streets"). */
  traits?: [string, string][];
}

/** Sizes of a generated world. */
export interface WorldSizes {
  /** @default 8 */
  countries: number;
  /** @default 32 */
  cities: number;
  /** @default 100 */
  people: number;
  /** @default 40 */
  companies: number;
  /** @default 40 */
  films: number;
  /** Distractor sentences per document. @default 2 */
  distractors: number;
  /**
   * 1: each person also lives in a city other than the one it was born in, so a person has two facts of the
   * same kind, two documents that the search for either returns together: one a question needs, the other a plausible wrong answer
   * ({@linkcode DECOY_RELATION}). 0: born only. @default 0
   */
  lives: number;
}

/** Default {@linkcode WorldSizes}. */
export const DEFAULT_WORLD_SIZES: Readonly<WorldSizes> = Object.freeze({
  countries: 8,
  cities: 32,
  people: 100,
  companies: 40,
  films: 40,
  distractors: 2,
  lives: 0,
});

/**
 * For a question's last relation, the other relation of the same entity whose value is a plausible wrong answer:
 * a person's born city against the city it lives in. What a memory that keeps the wrong fact of its search results holds.
 */
export const DECOY_RELATION: Readonly<Partial<Record<Relation, Relation>>> = Object.freeze({
  born: "lives",
  lives: "born",
});

/**
 * World sizes with the defaults filled in, checked: every count a positive
 * integer (distractors ≥ 0), and at least as many cities as countries (each
 * country's capital is one of its cities). What {@linkcode generateWorld}
 * runs first, and the experiment config checks before anything is generated.
 *
 * Source: the world's construction in {@linkcode generateWorld}.
 *
 * @param sizes Sizes given (the rest default to {@linkcode DEFAULT_WORLD_SIZES}).
 * @returns All six sizes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { worldSizes } from "./world.ts";
 *
 * assert.equal(worldSizes({ films: 4 }).cities, 32);
 * assert.throws(() => worldSizes({ countries: 9, cities: 4 }), /cities \(4\) must be ≥ countries \(9\)/);
 * ```
 */
export function worldSizes(sizes: Partial<WorldSizes> = {}): WorldSizes {
  const s = { ...DEFAULT_WORLD_SIZES, ...sizes };
  for (const [k, v] of Object.entries(s)) {
    const min = k === "distractors" || k === "lives" ? 0 : 1;
    if (!Number.isInteger(v) || v < min || (k === "lives" && v > 1)) {
      throw new RangeError(
        `Invalid world size: ${k} must be ${
          k === "lives" ? "0 or 1" : `a ${min === 0 ? "non-negative" : "positive"} integer`
        }, current value is ${v}`,
      );
    }
  }
  if (s.lives === 1 && s.cities < 2) {
    throw new RangeError(`Invalid world size: lives 1 needs at least 2 cities, current value is ${s.cities}`);
  }
  if (s.cities < s.countries) {
    throw new RangeError(
      `Invalid world size: cities (${s.cities}) must be ≥ countries (${s.countries}) so each country has a capital`,
    );
  }
  return s;
}

/** A generated world. */
export interface World {
  /** The seed it was generated from. */
  seed: number;
  /** All entities. */
  entities: Entity[];
  /** Entities by name. */
  byName: Map<string, Entity>;
}

/** Words of the distractor sentences (they make tool results long enough for memory to matter). */
export const TRAITS = Object.freeze([
  "quiet",
  "famous",
  "old",
  "modern",
  "small",
  "large",
  "busy",
  "rich",
  "green",
  "bright",
]);
/** Nouns of the distractor sentences. */
export const NOUNS = Object.freeze([
  "streets",
  "parks",
  "markets",
  "music",
  "river",
  "museum",
  "harbor",
  "gardens",
  "bridges",
  "festivals",
]);

const ONSETS = [
  "b",
  "d",
  "f",
  "g",
  "k",
  "l",
  "m",
  "n",
  "p",
  "r",
  "s",
  "t",
  "v",
  "z",
  "br",
  "dr",
  "kr",
  "tr",
  "st",
  "gl",
];
const VOWELS = ["a", "e", "i", "o", "u"];
const CODAS = ["", "n", "r", "l", "x", "s", "m", "k"];

/** Common words the names must not collide with (they appear in documents and questions). */
const RESERVED = new Set([
  "is",
  "a",
  "an",
  "the",
  "in",
  "of",
  "was",
  "born",
  "city",
  "country",
  "person",
  "company",
  "film",
  "located",
  "capital",
  "founder",
  "headquarters",
  "are",
  "director",
  "who",
  "what",
  "where",
  "which",
  "none",
  "answer",
  "doc",
  "unknown",
  "find",
  "search",
  "by",
  "to",
  "and",
  "or",
  "on",
  "at",
  "it",
  "as",
  "be",
  "do",
  "go",
  "no",
  "so",
  "up",
]);

function makeName(rng: Rng, used: Set<string>): string {
  for (;;) {
    const syllables = 2 + (rng.next() < 0.3 ? 1 : 0);
    let name = "";
    for (let i = 0; i < syllables; i++) {
      name += ONSETS[rng.int(ONSETS.length)]! + VOWELS[rng.int(VOWELS.length)]!;
      if (i === syllables - 1) name += CODAS[rng.int(CODAS.length)]!;
    }
    if (!used.has(name) && !RESERVED.has(name)) {
      used.add(name);
      return name;
    }
  }
}

/**
 * Generates a world: every city in a country, every country's capital one of
 * its cities, every person born in a city, every company founded by a person
 * and headquartered in a city, every film directed by a person.
 *
 * Source: synthetic multi-hop QA in the style of HotpotQA (Yang et al. 2018)
 * and MEM1's multi-objective composition (Zhou et al. 2025, arXiv:2506.15841).
 *
 * @param seed Seed (same seed → same world).
 * @param sizes Entity counts.
 * @param reservedNames Names that must not be used (another world's).
 * @param namePool Names to deal to the entities instead of inventing them
 *   (a seeded shuffle; must hold at least as many names as entities): a world
 *   with the same names in new roles and with new facts.
 * @returns The world.
 *
 * @example Deterministic per seed
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateWorld } from "./world.ts";
 *
 * const a = generateWorld(1);
 * assert.deepEqual(a.entities.map((e) => e.name), generateWorld(1).entities.map((e) => e.name));
 * assert.equal(a.byName.get(a.entities.find((e) => e.type === "person")!.facts.born!)!.type, "city");
 * ```
 */
export function generateWorld(
  seed: number,
  sizes: Partial<WorldSizes> = {},
  reservedNames: ReadonlySet<string> = new Set(),
  namePool?: readonly string[],
): World {
  const s = worldSizes(sizes);
  const { distractors } = s;
  const total = s.countries + s.cities + s.people + s.companies + s.films;
  if (namePool !== undefined && new Set(namePool).size < total) {
    throw new RangeError(
      `Invalid name pool: ${total} entities need ${total} distinct names, current pool has ${new Set(namePool).size}`,
    );
  }
  const rng = createRng(seed);
  const used = new Set<string>(reservedNames);
  const dealt = namePool === undefined ? undefined : shuffled([...new Set(namePool)], rng);
  const make = (type: EntityType, n: number): Entity[] =>
    Array.from({ length: n }, () => ({ name: dealt ? dealt.pop()! : makeName(rng, used), type, facts: {} }));
  const countries = make("country", s.countries);
  const cities = make("city", s.cities);
  const people = make("person", s.people);
  const companies = make("company", s.companies);
  const films = make("film", s.films);
  const pick = <T>(xs: T[]) => xs[rng.int(xs.length)]!;
  cities.forEach((c, i) => (c.facts.located = countries[i % countries.length]!.name));
  countries.forEach((n, i) => (n.facts.capital = cities[i]!.name)); // city i is in country i
  for (const p of people) p.facts.born = pick(cities).name;
  for (const c of companies) {
    c.facts.founder = pick(people).name;
    c.facts.headquarters = pick(cities).name;
  }
  for (const f of films) f.facts.director = pick(people).name;
  for (const e of [...countries, ...cities, ...people, ...companies, ...films]) {
    e.traits = Array.from({ length: distractors }, () => [pick([...TRAITS]), pick([...NOUNS])] as [string, string]);
  }
  const entities = shuffled([...countries, ...cities, ...people, ...companies, ...films], rng);
  if (s.lives === 1) {
    // drawn from a stream of their own, so a world with lives is the world without them plus one fact a person
    const livesRng = createRng(hashSeed(seed, hashString("lives")));
    for (const p of people) {
      const others = cities.filter((c) => c.name !== p.facts.born);
      p.facts.lives = others[livesRng.int(others.length)]!.name;
    }
  }
  return { seed, entities, byName: new Map(entities.map((e) => [e.name, e])) };
}

/** The relations each entity type states, in document order. */
const FACT_ORDER: Readonly<Record<EntityType, readonly Relation[]>> = {
  person: ["born", "lives"],
  city: ["located"],
  country: ["capital"],
  company: ["founder", "headquarters"],
  film: ["director"],
};

/**
 * The documents of an entity: one a fact, each a `subject relation object .`
 * triple followed by the entity's distractor sentences, so that the search
 * query `subject relation` appears in the document right before the answer.
 * Ids: the entity's name, or `name.relation` where it has two facts.
 *
 * ```text
 * person   "{p} born {city} ."   "{p} lives {city} ."       (ids p.born, p.lives)
 * city     "{c} located {country} ."
 * country  "{n} capital {city} ."
 * company  "{x} founder {person} ."   "{x} headquarters {city} ."
 * film     "{f} director {person} ."
 * + in each, `distractors` sentences "{x} is known for its {trait} {noun} ."
 * ```
 *
 * Why one fact a document: where one document stated two facts of its subject,
 * the SFT policy read a subject's fact by its place, never by the relation
 * asked (docs/research/what_to_remember.md#the-read-on-documents-of-two-facts);
 * with one fact a document the search ranks the fact asked first and the
 * subject's other fact second, read in passing (commit 5dc89be is the last with
 * one document an entity).
 *
 * Why triples: the teacher's memory repeats the triple, so writing the answer
 * is an induction copy (the word that followed `sisim director` in the
 * document), the circuit the warm-up forms. With sentences ("the director of
 * sisim is stepol") the SFT policy wrote the answer into memory 29 % of the
 * time (teacher-forced); with triples, 81 % of the names in memory.
 *
 * Source: short passages as the Wikipedia corpus of Search-R1, one statement each as in FEVER's sentence-level
 * evidence, written as knowledge-base triples (subject, relation, object).
 *
 * @param e The entity.
 * @returns Its documents, in the fact order above.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { factDocuments } from "./world.ts";
 *
 * assert.deepEqual(factDocuments({ name: "vunom", type: "person", facts: { born: "kalmar", lives: "tesla" } }), [
 *   { id: "vunom.born", text: "vunom born kalmar ." },
 *   { id: "vunom.lives", text: "vunom lives tesla ." },
 * ]);
 * assert.deepEqual(factDocuments({ name: "zorbex", type: "film", facts: { director: "kalo" } }), [
 *   { id: "zorbex", text: "zorbex director kalo ." },
 * ]);
 * ```
 */
export function factDocuments(e: Entity): CorpusDocument[] {
  const relations = FACT_ORDER[e.type].filter((r) => e.facts[r] !== undefined);
  const extra = (e.traits ?? []).map(([t, n]) => ` ${e.name} is known for its ${t} ${n} .`).join("");
  return relations.map((r) => ({
    id: relations.length === 1 ? e.name : `${e.name}.${r}`,
    text: `${e.name} ${r} ${e.facts[r]} .${extra}`,
  }));
}

/** A corpus document. */
export interface CorpusDocument {
  /** Document id (the entity's name, or `name.relation` where it has two facts). */
  id: string;
  /** The text. */
  text: string;
}

/**
 * The corpus: every entity's documents ({@linkcode factDocuments}), in the world's order.
 *
 * Source: see {@linkcode factDocuments}.
 *
 * @param world The world.
 * @returns Documents.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildCorpus, generateWorld } from "./world.ts";
 *
 * const w = generateWorld(3, { lives: 1 });
 * const twoFacts = w.entities.filter((e) => e.type === "person" || e.type === "company").length;
 * assert.equal(buildCorpus(w).length, w.entities.length + twoFacts);
 * ```
 */
export function buildCorpus(world: World): CorpusDocument[] {
  return world.entities.flatMap(factDocuments);
}

/**
 * The subject of a corpus document: its text's first word (every fact and
 * distractor sentence starts with it), what the search tool indexes as the
 * document's title.
 *
 * Source: this package's documents ({@linkcode factDocuments}); the title field of Search-R1's Wikipedia passages.
 *
 * @param doc The document.
 * @returns Its subject's name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { documentSubject } from "./world.ts";
 *
 * assert.equal(documentSubject({ id: "vunom.born", text: "vunom born kalmar ." }), "vunom");
 * ```
 */
export function documentSubject(doc: CorpusDocument): string {
  return doc.text.split(" ", 1)[0]!;
}

/**
 * The entity names a corpus states, once each, in the corpus' order (the
 * world's).
 *
 * Source: this package ({@linkcode documentSubject}).
 *
 * @param corpus The documents.
 * @returns The names of their subjects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildCorpus, corpusNames, generateWorld } from "./world.ts";
 *
 * const w = generateWorld(2, { lives: 1 });
 * assert.deepEqual(corpusNames(buildCorpus(w)), w.entities.map((e) => e.name));
 * ```
 */
export function corpusNames(corpus: readonly CorpusDocument[]): string[] {
  return [...new Set(corpus.map(documentSubject))];
}

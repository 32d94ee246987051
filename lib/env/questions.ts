/**
 * Question templates over the world: 1- and 2-hop sub-questions, joined into
 * k-objective questions (MEM1's convention), with train and test sets over
 * disjoint subject entities.
 *
 * @module
 */
import { createRng, hashSeed, hashString, type Rng, shuffled } from "../random.ts";
import { DECOY_RELATION, type EntityType, type Relation, RELATIONS, type World, type WorldSizes } from "./world.ts";

/** A question template: the relation path from a subject and its wording. */
export interface Template {
  /** Relations followed from the subject (1 or 2 hops). */
  path: Relation[];
  /** Wording with `{x}` for the subject's name. */
  text: string;
}

/**
 * All templates, by subject type. Every wording starts with the subject, so
 * the name the agent must look up follows the `;` before its objective, where
 * a one-token induction copy finds it. (With the subject inside the clause,
 * `in which city was the director of {x} born ?`, the SFT policy named the
 * next objective's entity 60 % of the time under teacher forcing.)
 */
export const TEMPLATES: Readonly<Record<EntityType, readonly Template[]>> = Object.freeze({
  person: [
    { path: ["born"], text: "{x} was born in which city ?" },
    { path: ["born", "located"], text: "{x} was born in which country ?" },
    { path: ["lives"], text: "{x} lives in which city ?" },
  ],
  city: [{ path: ["located"], text: "{x} is in which country ?" }],
  country: [{ path: ["capital"], text: "{x} has which capital ?" }],
  company: [
    { path: ["founder"], text: "{x} was founded by whom ?" },
    { path: ["headquarters"], text: "{x} is headquartered where ?" },
    { path: ["founder", "born"], text: "{x} was founded by someone born in which city ?" },
    { path: ["headquarters", "located"], text: "{x} is headquartered in which country ?" },
  ],
  film: [
    { path: ["director"], text: "{x} was directed by whom ?" },
    { path: ["director", "born"], text: "{x} was directed by someone born in which city ?" },
  ],
});

/** One hop of a sub-question: from `entity` along `relation` to `answer`. */
export interface Hop {
  /** The entity searched for. */
  entity: string;
  /** The relation read from its document. */
  relation: Relation;
  /** The related entity. */
  answer: string;
  /**
   * On an objective's last hop, the value of the entity's other relation of the same kind
   * ({@linkcode DECOY_RELATION}): read in the same search results, a plausible wrong answer. Absent when there is none.
   */
  decoy?: string;
}

/** One objective of a question. */
export interface SubQuestion {
  /** Its wording. */
  text: string;
  /** The entity the question names. */
  subject: string;
  /** The hops that resolve it, in order. */
  hops: Hop[];
  /** The final answer (the last hop's). */
  answer: string;
  /**
   * Its place in the question as a word (`q3`, {@linkcode objectiveMarker}), as the data files record it. No
   * question, think or memory names it since the objective markers were retired (docs/design.md#retired); kept so
   * that the data files stay the same. Absent in a file written before markers (read back without it).
   */
  marker?: string;
}

/** A k-objective question. */
export interface QaItem {
  /** The sub-questions joined by " ; ". */
  question: string;
  /** The objectives. */
  subQuestions: SubQuestion[];
  /** Aliases per objective (one alias each here). */
  targets: string[][];
}

/**
 * Resolves a template for a subject into a sub-question (its hops and answer).
 *
 * Source: multi-hop composition as in HotpotQA bridge questions (Yang et al. 2018).
 *
 * @param world The world.
 * @param subject The subject entity's name.
 * @param template The template (its path must start at the subject's type).
 * @returns The sub-question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateWorld } from "./world.ts";
 * import { makeSubQuestion, TEMPLATES } from "./questions.ts";
 *
 * const w = generateWorld(1);
 * const p = w.entities.find((e) => e.type === "person")!;
 * const q = makeSubQuestion(w, p.name, TEMPLATES.person[1]!);
 * assert.equal(q.hops[0]!.answer, p.facts.born);
 * assert.equal(q.answer, w.byName.get(p.facts.born!)!.facts.located);
 * ```
 */
export function makeSubQuestion(world: World, subject: string, template: Template): SubQuestion {
  let current = subject;
  const hops: Hop[] = [];
  for (const relation of template.path) {
    const e = world.byName.get(current);
    if (e === undefined || e.type !== RELATIONS[relation].from) {
      throw new TypeError(`Cannot follow ${relation} from ${current}: it is not a ${RELATIONS[relation].from}`);
    }
    const answer = e.facts[relation]!;
    hops.push({ entity: current, relation, answer });
    current = answer;
  }
  const last = hops.at(-1)!;
  const decoy = DECOY_RELATION[last.relation] && world.byName.get(last.entity)?.facts[DECOY_RELATION[last.relation]!];
  if (decoy !== undefined) last.decoy = decoy;
  return { text: template.text.replace("{x}", subject), subject, hops, answer: current };
}

/**
 * The word of objective `i` (0-based): `q1`, `q2`, … Questions were numbered
 * with these one-token markers (`q1 … ; q2 …`) up to commit 3dbb285; they
 * are now separated by `;` alone, and the marker only records each
 * objective's place in the data files ({@linkcode SubQuestion}'s `marker`).
 *
 * Source: this package (the markers of docs/research/many_objectives.md).
 *
 * @param i The objective's index (0-based).
 * @returns Its marker word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectiveMarker } from "./questions.ts";
 *
 * assert.equal(objectiveMarker(0), "q1");
 * assert.equal(objectiveMarker(7), "q8");
 * ```
 */
export function objectiveMarker(i: number): string {
  return `q${i + 1}`;
}

/** Options of {@linkcode buildQaSplits}. */
export interface QaSplitOptions {
  /** Seed. @default 0 */
  seed?: number;
  /** Training questions. @default 2000 */
  trainCount?: number;
  /** Objectives per training question; a list is cycled (question `i` has `list[i mod n]`). @default 2 */
  trainObjectives?: number | readonly number[];
  /** Questions per test set. @default 32 */
  testCount?: number;
  /** Objectives of each test set. @default [1, 2, 4, 6, 8] */
  testObjectives?: number[];
  /** Share of each type's entities reserved as test subjects. @default 0.3 */
  testFraction?: number;
  /**
   * Whether the names of a question are all different: no answer is another
   * objective's answer or any objective's subject. Then every answer in a
   * memory or a final answer is a word that occurs once there, so copying
   * the list is a lookup by the word before (an induction head's), whatever
   * its length; with repeated answers (8 countries answer about a third of
   * the objectives) the word before does not say which copy comes next.
   * @default false
   */
  distinctAnswers?: boolean;
  /**
   * Questions per validation set, one set per test objective count, asked about validation subjects: a share
   * (15 %, at least one, never a type's last) of each type's non-test entities that no training question then asks about. What a choice of
   * recipe is read from, so that the test sets are read once, at the end. The test sets are those drawn without a
   * validation split (the training questions of the full pool are drawn and set aside, so the shared stream reaches
   * the test sets where it would have; the training questions come from their own stream). 0: no split, the training
   * set is the one without it. @default 0
   */
  validCount?: number;
}

// share of each type's non-test entities kept as validation subjects when validCount > 0
const VALID_FRACTION = 0.15;

/** Train questions and one test set per objective count. */
export interface QaSplits {
  /** Training questions (train subjects only). */
  train: QaItem[];
  /** Test sets keyed by objective count (test subjects only). */
  test: Map<number, QaItem[]>;
  /** The subjects reserved for testing. */
  testSubjects: Set<string>;
  /** Validation sets keyed by objective count (validation subjects only; empty without `validCount`). */
  valid: Map<number, QaItem[]>;
  /** The subjects reserved for validation (empty without `validCount`). */
  validSubjects: Set<string>;
}

function makeQuestion(
  world: World,
  subjects: Map<EntityType, string[]>,
  k: number,
  rng: Rng,
  distinctAnswers: boolean,
): QaItem {
  const types = [...subjects.keys()].filter((t) => subjects.get(t)!.length > 0);
  const chosen = new Set<string>();
  // with distinctAnswers: every subject and answer of the question, each once
  const names = new Set<string>();
  const subQuestions: SubQuestion[] = [];
  for (let draws = 0; subQuestions.length < k; draws++) {
    if (draws > 10_000 * k) {
      throw new RangeError(
        `Cannot build a ${k}-objective question with distinct answers: the world has too few answers to draw from`,
      );
    }
    const type = types[rng.int(types.length)]!;
    const pool = subjects.get(type)!;
    const subject = pool[rng.int(pool.length)]!;
    if (chosen.has(subject)) continue;
    const templates = templatesOf(world, type);
    const q = makeSubQuestion(world, subject, templates[rng.int(templates.length)]!);
    const decoy = q.hops.at(-1)!.decoy;
    if (
      distinctAnswers &&
      (names.has(subject) || names.has(q.answer) || q.answer === subject || (decoy !== undefined && names.has(decoy)))
    ) continue;
    chosen.add(subject);
    names.add(subject).add(q.answer);
    if (decoy !== undefined) names.add(decoy);
    subQuestions.push(q);
  }
  subQuestions.forEach((q, i) => q.marker = objectiveMarker(i));
  return {
    question: questionText(subQuestions),
    subQuestions,
    targets: subQuestions.map((q) => [q.answer]),
  };
}

/**
 * The templates of a type that the world can answer: a template that follows a relation no entity of the world
 * states (`lives` in a world without it, `WorldSizes.lives`) is left out, so such a world draws the questions it
 * drew before the relation existed.
 */
function templatesOf(world: World, type: EntityType): readonly Template[] {
  const stated = new Set(world.entities.flatMap((e) => Object.keys(e.facts)));
  return TEMPLATES[type].filter((t) => t.path.every((r) => stated.has(r)));
}

/** A question's text from its objectives: their texts joined by ` ; ` (MEM1's multi-objective questions). */
function questionText(subQuestions: readonly SubQuestion[]): string {
  return subQuestions.map((q) => q.text).join(" ; ");
}

/**
 * The objectives of a set of questions, in order, one entry per sub-question
 * (a subject asked by several questions is several entries): the pool that
 * joined questions draw from (`loadData`'s `"train"` split, `sft.joinShare`,
 * `rl.joinShare`).
 *
 * Source: this package.
 *
 * @param records Questions with their sub-questions (a question without them adds none).
 * @returns Their sub-questions, flattened.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectivePool } from "./questions.ts";
 *
 * const one = (subject: string) => ({ text: `${subject} was born in which city ?`, subject, answer: "kalmar", hops: [] });
 * const pool = objectivePool([{ subQuestions: [one("zorbex"), one("vunom")] }, {}, { subQuestions: [one("kata")] }]);
 * assert.deepEqual(pool.map((q) => q.subject), ["zorbex", "vunom", "kata"]);
 * ```
 */
export function objectivePool(records: readonly { subQuestions?: readonly SubQuestion[] }[]): SubQuestion[] {
  return records.flatMap((r) => r.subQuestions ?? []);
}

/**
 * Questions of `k` objectives drawn from a pool of objectives (the training
 * questions' own, for `loadData`'s `"train"` split: how well a policy does
 * on what it trained on, at the test sizes): distinct subjects, and with
 * `distinctAnswers` every subject and answer of a question once (as
 * {@linkcode buildQaSplits} draws them), written as the data writes its
 * questions (their texts joined by ` ; `).
 *
 * Source: this package.
 *
 * @param pool The objectives drawn from (each may be drawn by several questions).
 * @param k Objectives per question.
 * @param count Questions.
 * @param options Seed, and the data's `distinctAnswers`. @default distinctAnswers false
 * @returns The questions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { joinedQuestions } from "./questions.ts";
 *
 * const one = (subject: string, answer: string) => ({ text: `${subject} was born in which city ?`, subject, answer, hops: [{ entity: subject, relation: "born" as const, answer }] });
 * const pool = [one("zorbex", "kalmar"), one("vunom", "tesla"), one("kata", "kalmar")];
 * const qs = joinedQuestions(pool, 2, 5, { seed: 1, distinctAnswers: true });
 * assert.equal(qs.length, 5);
 * // kata and zorbex share their answer: never in one question
 * assert.ok(qs.every((q) => q.targets.flat().length === 2 && new Set(q.targets.flat()).size === 2));
 * assert.match(qs[0]!.question, /^\w+ was born in which city \? ; \w+ was born in which city \?$/);
 * assert.throws(() => joinedQuestions(pool, 3, 1, { seed: 0, distinctAnswers: true }), /no 3 objectives of the pool have distinct names/);
 * assert.equal(joinedQuestions(pool, 3, 1, { seed: 0 })[0]!.question.split(" ; ").length, 3); // answers may repeat
 * assert.match(joinedQuestions(pool, 1, 1, { seed: 0 })[0]!.question, /^\w+ was born in which city \?$/);
 * ```
 */
export function joinedQuestions(
  pool: readonly SubQuestion[],
  k: number,
  count: number,
  options: { seed: number; distinctAnswers?: boolean },
): QaItem[] {
  if (pool.length === 0) throw new RangeError(`Cannot join questions: the pool of objectives is empty`);
  const rng = createRng(hashSeed(options.seed, k));
  const names = (q: SubQuestion) => options.distinctAnswers ? [q.subject, q.answer] : [q.subject];
  return Array.from({ length: count }, () => {
    const chosen: SubQuestion[] = [];
    const used = new Set<string>();
    for (let tries = 0; chosen.length < k; tries++) {
      if (tries > 200 * k + pool.length) {
        throw new RangeError(`Cannot join questions: no ${k} objectives of the pool have distinct names`);
      }
      const q = pool[rng.int(pool.length)]!;
      if (names(q).some((n) => used.has(n))) continue;
      for (const n of names(q)) used.add(n);
      chosen.push({ ...q, marker: objectiveMarker(chosen.length) });
    }
    return {
      question: questionText(chosen),
      subQuestions: chosen,
      targets: chosen.map((q) => [q.answer]),
    };
  });
}

/** Test subjects drawn from `n` entities of one type. */
const testShare = (n: number, testFraction: number) => Math.max(1, Math.round(n * testFraction));

/**
 * How many test subjects {@linkcode buildQaSplits} sets aside in a world of
 * these sizes: a share of each entity type that questions are asked about,
 * at least one each. A k-objective question needs k of them.
 *
 * ```text
 * Σ_type max(1, round(n_type · testFraction))
 * ```
 *
 * Source: {@linkcode buildQaSplits}'s split of subjects.
 *
 * @param sizes The world's sizes.
 * @param testFraction Share of each type's entities kept for testing. @default 0.3
 * @returns The number of test subjects.
 *
 * @example The quick preset's world: 1 + 1 + 2 + 1 + 1 subjects
 * ```ts
 * import assert from "node:assert/strict";
 * import { testSubjectCount } from "./questions.ts";
 *
 * assert.equal(testSubjectCount({ countries: 2, cities: 4, people: 8, companies: 4, films: 4, distractors: 0 }), 6);
 * ```
 */
export function testSubjectCount(sizes: Omit<WorldSizes, "lives">, testFraction = 0.3): number {
  const count: Record<EntityType, number> = {
    person: sizes.people,
    city: sizes.cities,
    country: sizes.countries,
    company: sizes.companies,
    film: sizes.films,
  };
  return (Object.keys(TEMPLATES) as EntityType[]).reduce((n, type) => n + testShare(count[type], testFraction), 0);
}

/**
 * Builds the training set and the test sets; test subjects are never asked
 * about in training.
 *
 * Source: MEM1 (arXiv:2506.15841) multi-objective evaluation (2 objectives in
 * training, more at test time); MemPO's 1–8-objective evaluation.
 *
 * @param world The world.
 * @param options Counts, objectives, seed, test share.
 * @returns Train and test questions.
 *
 * @example Disjoint subjects
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateWorld } from "./world.ts";
 * import { buildQaSplits } from "./questions.ts";
 *
 * const s = buildQaSplits(generateWorld(1), { trainCount: 50, testCount: 5 });
 * assert.ok(s.train.every((q) => q.subQuestions.every((x) => !s.testSubjects.has(x.subject))));
 * assert.equal(s.test.get(8)![0]!.targets.length, 8);
 * ```
 */
export function buildQaSplits(world: World, options: QaSplitOptions = {}): QaSplits {
  const {
    seed = 0,
    trainCount = 2000,
    trainObjectives = 2,
    testCount = 32,
    testObjectives = [1, 2, 4, 6, 8],
    testFraction = 0.3,
    distinctAnswers = false,
    validCount = 0,
  } = options;
  if (!(testFraction > 0 && testFraction < 1)) {
    throw new RangeError(`Cannot build QA splits: testFraction must be in (0, 1), current value is ${testFraction}`);
  }
  if (!(Number.isInteger(validCount) && validCount >= 0)) {
    throw new RangeError(
      `Cannot build QA splits: validCount must be an integer ≥ 0, current value is ${JSON.stringify(validCount)}`,
    );
  }
  const rng = createRng(seed);
  const train = new Map<EntityType, string[]>();
  const test = new Map<EntityType, string[]>();
  const valid = new Map<EntityType, string[]>();
  for (const type of Object.keys(TEMPLATES) as EntityType[]) {
    const names = shuffled(world.entities.filter((e) => e.type === type).map((e) => e.name), rng);
    const nTest = testShare(names.length, testFraction);
    test.set(type, names.slice(0, nTest));
    train.set(type, names.slice(nTest));
    if (validCount > 0) {
      // at least one each, but never a type's last training entity (its templates stay in training)
      const nValid = Math.max(0, Math.min(names.length - nTest - 1, testShare(names.length - nTest, VALID_FRACTION)));
      valid.set(type, names.slice(nTest, nTest + nValid));
    }
  }
  const testSubjects = new Set([...test.values()].flat());
  const validSubjects = new Set([...valid.values()].flat());
  const ks = typeof trainObjectives === "number" ? [trainObjectives] : trainObjectives;
  if (ks.length === 0 || !ks.every((k) => Number.isInteger(k) && k >= 1)) {
    throw new RangeError(
      `Cannot build QA splits: trainObjectives must be positive integers, current value is ${
        JSON.stringify(trainObjectives)
      }`,
    );
  }
  const maxK = Math.max(...ks, ...testObjectives);
  if (testSubjects.size < maxK) {
    throw new RangeError(
      `Cannot build QA splits: ${testSubjects.size} test subjects cannot make ${maxK}-objective questions`,
    );
  }
  const maxTest = Math.max(...testObjectives);
  if (validCount > 0 && validSubjects.size < maxTest) {
    throw new RangeError(
      `Cannot build QA splits: ${validSubjects.size} validation subjects (validFraction ${VALID_FRACTION}) cannot ` +
        `make ${maxTest}-objective questions`,
    );
  }
  const drawTrain = (pool: Map<EntityType, string[]>, r: Rng) =>
    Array.from(
      { length: trainCount },
      (_, i) => makeQuestion(world, pool, ks[i % ks.length]!, r, distinctAnswers),
    );
  const drawSets = (pool: Map<EntityType, string[]>, r: Rng, count: number) =>
    new Map(
      testObjectives.map((k) => [
        k,
        Array.from({ length: count }, () => makeQuestion(world, pool, k, r, distinctAnswers)),
      ]),
    );
  let trainQuestions: QaItem[];
  if (validCount === 0) trainQuestions = drawTrain(train, rng);
  else {
    // the full pool's training questions only advance the shared stream, so the test sets below are the ones without
    // a split; the training set comes from its own stream, without the validation subjects
    drawTrain(train, rng);
    const trainPool = new Map([...train].map(([t, names]) => [t, names.filter((n) => !validSubjects.has(n))]));
    trainQuestions = drawTrain(trainPool, createRng(hashSeed(seed, hashString("valid-train"))));
  }
  const testSets = drawSets(test, rng, testCount);
  return {
    train: trainQuestions,
    test: testSets,
    testSubjects,
    valid: validCount > 0 ? drawSets(valid, createRng(hashSeed(seed, hashString("valid"))), validCount) : new Map(),
    validSubjects,
  };
}

/**
 * `deno task data`: the world, its corpus, the train/test QA sets and the
 * tokenizer, written to a data directory; and the loader the trainer uses.
 *
 * @module
 */
import { buildTokenizer, type Tokenizer, tokenizerFromJson, tokenizerToJson } from "../text/tokenizer.ts";
import { SYSTEM_PROMPT } from "../env/context.ts";
import { buildQaSplits, joinedQuestions, objectivePool, type QaItem, type QaSplitOptions } from "../env/questions.ts";
import { buildSearchIndex, NO_RESULTS, type SearchIndex } from "../env/search.ts";
import { buildCorpus, type CorpusDocument, generateWorld, RELATIONS, type WorldSizes } from "../env/world.ts";
import { type QaRecord, readCorpus, readDataset, writeCorpus, writeDataset } from "./dataset.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { hashSeed, hashString } from "../random.ts";
import { DataError } from "../errors.ts";
import { parseJsonText } from "../json_file.ts";

/** Options of {@linkcode buildData}. */
export interface BuildDataOptions extends QaSplitOptions {
  /** World sizes. */
  sizes?: Partial<WorldSizes>;
  /**
   * Auxiliary worlds whose questions feed SFT only: the main world's names
   * dealt again to new roles with new facts (same grammar). A name's facts
   * differ from world to world, so they cannot be memorised: the policy has
   * to read the documents and copy, and every name, test subjects included,
   * is a word it has learned to write. No main-world fact reaches training
   * this way. @default 0
   */
  auxWorlds?: number;
  /**
   * The environment's memory context shows the question before the first turn only (MEM1's state: the memory
   * carries what is still asked). It changes no file but the manifest, which records it; {@linkcode loadData}
   * reads it back into {@linkcode LoadedData}'s `questionOnce`. @default false
   */
  questionOnce?: boolean;
  /** Training questions per auxiliary world. @default trainCount */
  auxTrainCount?: number;
  /**
   * Objectives of the auxiliary worlds' questions, cycled (e.g. `[1, 2, 3]`:
   * SFT sees how to start, continue and finish at several lengths while the
   * main training set keeps `trainObjectives`). @default trainObjectives
   */
  auxObjectives?: readonly number[];
}

/**
 * Version of what {@linkcode buildData} writes for given options: bumped
 * whenever the generator changes, so a data directory written by an older
 * generator is rebuilt rather than reused.
 */
export const DATA_VERSION = 10;

/**
 * The sets a data directory can be evaluated on: the test sets; the validation sets (`validCount`); or `train`,
 * questions of the training questions' own objectives joined to the test sizes (`joinedQuestions`, built when loaded,
 * seeded): how well a policy does on what it trained on, beside how well it does on held-out subjects.
 */
export const DATA_SPLITS = ["test", "valid", "train"] as const;

/** One of {@linkcode DATA_SPLITS}. */
export type DataSplit = typeof DATA_SPLITS[number];

/** What each split's sets hold, in words (the titles and notes of eval.md and compare.md). */
export const SPLIT_SETS: Readonly<Record<DataSplit, string>> = Object.freeze({
  test: "the test sets",
  valid: "the validation sets: questions about the validation subjects (`data.validCount`), which no training " +
    "question asks about",
  train: "training questions joined to the test sizes: the objectives of the main world's training questions, " +
    "joined k at a time (the policy's fit, beside the held-out subjects of the test sets)",
});

/**
 * Where a run's files for a split go: the run directory for the test sets, `RUN/<split>` for the others.
 *
 * Source: this package.
 *
 * @param runDir The run directory.
 * @param split The split.
 * @returns The directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitDir } from "./build.ts";
 *
 * assert.equal(splitDir("runs/a", "test"), "runs/a");
 * assert.equal(splitDir("runs/a", "valid"), "runs/a/valid");
 * ```
 */
export function splitDir(runDir: string, split: DataSplit): string {
  return split === "test" ? runDir : `${runDir}/${split}`;
}

/**
 * The title of a split's sets ("the validation sets"), and the sentence that says what they hold, for eval.md and
 * compare.md; none for the test sets.
 *
 * Source: {@linkcode SPLIT_SETS}.
 *
 * @param split The split.
 * @returns Its title and note, or undefined for `"test"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitTitle } from "./build.ts";
 *
 * assert.equal(splitTitle("test"), undefined);
 * assert.equal(splitTitle("valid")!.title, "the validation sets");
 * ```
 */
export function splitTitle(split: DataSplit): { title: string; note: string } | undefined {
  if (split === "test") return undefined;
  return { title: SPLIT_SETS[split].split(":")[0]!, note: `Every "test set" below is one of ${SPLIT_SETS[split]}.` };
}

/** What a data directory holds once loaded. */
export interface LoadedData {
  /** The tokenizer. */
  tokenizer: Tokenizer;
  /** The corpus. */
  corpus: CorpusDocument[];
  /** BM25 index over the corpus. */
  search: SearchIndex;
  /** Training questions. */
  train: QaRecord[];
  /**
   * The evaluated sets by objective count: the test sets, or the sets of another split ({@linkcode loadData}'s
   * option: the validation sets, or training questions joined to the test sizes), so that every evaluation reads the
   * split it was given the same way.
   */
  test: Map<number, QaRecord[]>;
  /** Which sets `test` holds ({@linkcode DATA_SPLITS}; absent: `"test"`). */
  split?: DataSplit;
  /** Auxiliary worlds: their training questions and search index (SFT only). */
  aux: { train: QaRecord[]; search: SearchIndex; corpus: CorpusDocument[] }[];
  /** The memory context shows the question before the first turn only ({@linkcode BuildDataOptions}). */
  questionOnce: boolean;
}

/**
 * Words every tokenizer of the task needs besides the corpus and the questions: the system prompt, the empty-search
 * message, document headers, the memory's and answers' punctuation (`;`, `.`, `|`), `answer` and `unknown`, numbers
 * and the relation words. `buildData` adds them; a notebook or test that builds its own tokenizer passes them too.
 * (`none`, `=`, `~` and `,` were the retired slots memory's, docs/design.md#retired: kept, so that a tokenizer and the
 * token ids of every checkpoint trained on it stay the same.)
 */
export const TOKENIZER_SCAFFOLD: readonly string[] = Object.freeze([
  SYSTEM_PROMPT,
  NO_RESULTS,
  "[Doc 1] [Doc 2] [Doc 3] [Doc 4] [Doc 5]",
  "none answer unknown = ~ , ; . |",
  Array.from({ length: 16 }, (_, i) => String(i + 1)).join(" "),
  Object.keys(RELATIONS).join(" "),
]);

function toRecord(q: QaItem, split: string, index: number): QaRecord {
  return {
    prompt: [{ role: "system", content: SYSTEM_PROMPT }, { role: "user", content: q.question }],
    question: q.question,
    targets: q.targets,
    dataSource: "mempo-lab/synthetic-world",
    split,
    index,
    subQuestions: q.subQuestions,
  };
}

/**
 * Generates and writes a data directory:
 * `corpus.parquet`, `train.parquet`, `test_{k}obj.parquet`, `tokenizer.json`, `manifest.json`, and
 * `valid_{k}obj.parquet` with `validCount`.
 *
 * Source: verl data preparation; MEM1's 2-objective training / k-objective test protocol.
 *
 * @param dir Output directory (created).
 * @param seed World and question seed.
 * @param options Sizes and counts.
 * @returns The manifest written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "./build.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 10, testCount: 2, testObjectives: [1, 2] });
 * const data = await loadData(dir);
 * assert.equal(data.train.length, 10);
 * assert.equal(data.test.get(2)!.length, 2);
 * ```
 */
export async function buildData(
  dir: string,
  seed: number,
  options: BuildDataOptions = {},
): Promise<Record<string, unknown>> {
  await Deno.mkdir(dir, { recursive: true });
  // the manifest is the commit record: removed before any file changes, written last (a kill leaves no manifest)
  await Deno.remove(`${dir}/manifest.json`).catch(() => {});
  const world = generateWorld(seed, options.sizes);
  const corpus = buildCorpus(world);
  const splits = buildQaSplits(world, { ...options, seed });
  const train = splits.train.map((q, i) => toRecord(q, "train", i));
  const tests = [...splits.test.entries()].map(([k, qs]) =>
    [k, qs.map((q, i) => toRecord(q, `test_${k}obj`, i))] as const
  );
  const valids = [...splits.valid.entries()].map(([k, qs]) =>
    [k, qs.map((q, i) => toRecord(q, `valid_${k}obj`, i))] as const
  );
  const names = world.entities.map((e) => e.name);
  const aux = Array.from({ length: options.auxWorlds ?? 0 }, (_, k) => {
    const w = generateWorld(seed + 1000 * (k + 1), options.sizes, undefined, names);
    const s = buildQaSplits(w, {
      ...options,
      seed: seed + 1000 * (k + 1),
      trainCount: options.auxTrainCount ?? options.trainCount,
      trainObjectives: options.auxObjectives ?? options.trainObjectives,
      testCount: 1,
      validCount: 0,
    });
    return { corpus: buildCorpus(w), train: s.train.map((q, i) => toRecord(q, `aux${k + 1}`, i)) };
  });
  const tokenizer = buildTokenizer([
    ...TOKENIZER_SCAFFOLD,
    ...corpus.map((d) => d.text),
    ...train.map((r) => r.question),
    ...tests.flatMap(([, rs]) => rs.map((r) => r.question)),
    ...valids.flatMap(([, rs]) => rs.map((r) => r.question)),
    ...aux.flatMap((a) => a.train.map((r) => r.question)),
  ]);
  for (const [k, a] of aux.entries()) {
    await writeCorpus(`${dir}/aux${k + 1}_corpus.parquet`, a.corpus);
    await writeDataset(`${dir}/aux${k + 1}_train.parquet`, a.train);
  }
  await writeCorpus(`${dir}/corpus.parquet`, corpus);
  await writeDataset(`${dir}/train.parquet`, train);
  for (const [k, rs] of tests) await writeDataset(`${dir}/test_${k}obj.parquet`, rs);
  for (const [k, rs] of valids) await writeDataset(`${dir}/valid_${k}obj.parquet`, rs);
  await Deno.writeTextFile(`${dir}/tokenizer.json`, tokenizerToJson(tokenizer));
  const manifest = {
    seed,
    sizes: world.entities.reduce(
      (acc, e) => ({ ...acc, [e.type]: ((acc as Record<string, number>)[e.type] ?? 0) + 1 }),
      {},
    ),
    documents: corpus.length,
    train: train.length,
    test: Object.fromEntries(tests.map(([k, rs]) => [`${k}obj`, rs.length])),
    vocabSize: tokenizer.size,
    testSubjects: splits.testSubjects.size,
    ...(valids.length > 0
      ? {
        valid: Object.fromEntries(valids.map(([k, rs]) => [`${k}obj`, rs.length])),
        validSubjects: splits.validSubjects.size,
      }
      : {}),
    auxWorlds: aux.length,
    version: DATA_VERSION,
    options: { seed, ...options },
  };
  await writeFileAtomic(`${dir}/manifest.json`, JSON.stringify(manifest, null, 2));
  return manifest;
}

const LOADED_FROM = new WeakMap<LoadedData, string>();

/**
 * The directory {@linkcode loadData} read `data` from, or undefined for data
 * it did not load (built in memory, or changed copies): what worker
 * processes load to get the same data (`createEvalWorkers`).
 *
 * Source: this package.
 *
 * @param data Loaded data.
 * @returns Its directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, dataDirOf, loadData } from "./build.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 1, testObjectives: [1] });
 * const data = await loadData(dir);
 * assert.equal(dataDirOf(data), dir);
 * assert.equal(dataDirOf({ ...data }), undefined);
 * ```
 */
export function dataDirOf(data: LoadedData): string | undefined {
  return LOADED_FROM.get(data);
}

/**
 * Loads a data directory written by {@linkcode buildData}.
 *
 * Source: see {@linkcode buildData}.
 *
 * @param dir The directory.
 * @param options `split`: the sets loaded as `test` ({@linkcode DATA_SPLITS}). @default { split: "test" }
 * @returns Tokenizer, corpus, search index, train and test (or the split's) sets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "./build.ts";
 *
 * await assert.rejects(loadData("/nonexistent"), /Cannot load data from \/nonexistent/);
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 4, testCount: 2, testObjectives: [1, 2], validCount: 3 });
 * const valid = await loadData(dir, { split: "valid" });
 * assert.deepEqual([valid.split, valid.test.get(2)!.length, valid.test.get(2)![0]!.split], ["valid", 3, "valid_2obj"]);
 * ```
 */
export async function loadData(dir: string, options: { split?: DataSplit } = {}): Promise<LoadedData> {
  const split = options.split ?? "test";
  if (!(DATA_SPLITS as readonly string[]).includes(split)) {
    throw new DataError(
      `Cannot load data from ${dir}: split must be one of ${DATA_SPLITS.join(", ")}, current value is ${
        JSON.stringify(split)
      }`,
    );
  }
  const read = async (file: string) => {
    try {
      return await Deno.readTextFile(`${dir}/${file}`);
    } catch (e) {
      const why = e instanceof Deno.errors.NotFound ? `no ${file}` : `cannot read ${file} (${(e as Error).message})`;
      throw new DataError(`Cannot load data from ${dir}: ${why} (run deno task data)`);
    }
  };
  const rebuild = "rebuild it with deno task data";
  const manifest = parseJsonText(await read("manifest.json"), `${dir}/manifest.json`, { hint: rebuild }) as {
    test?: Record<string, number>;
    valid?: Record<string, number>;
    auxWorlds?: number;
    seed?: number;
    // the options read back; a retired one a manifest holds (`markers`, `subjectIndex`, docs/design.md#retired) is not
    options?: { questionOnce?: unknown; distinctAnswers?: boolean };
  } | null;
  let tokenizer: Tokenizer;
  if (typeof manifest !== "object" || manifest === null || typeof manifest.test !== "object") {
    throw new DataError(
      `Cannot load data from ${dir}: manifest.json has no "test" object; ${rebuild}`,
    );
  }
  const tokenizerText = await read("tokenizer.json");
  try {
    tokenizer = tokenizerFromJson(tokenizerText, `${dir}/tokenizer.json`);
  } catch (e) {
    if (e instanceof DataError) throw new DataError(`${e.message}; ${rebuild}`);
    throw new DataError(
      `Cannot load data from ${dir}: tokenizer.json is damaged (${(e as Error).message}); ${rebuild}`,
    );
  }
  const corpus = await readCorpus(`${dir}/corpus.parquet`);
  const train = await readDataset(`${dir}/train.parquet`);
  const sets = split === "valid" ? manifest.valid : manifest.test;
  if (split === "valid" && (typeof sets !== "object" || sets === null)) {
    throw new DataError(
      `Cannot load data from ${dir}: it has no validation sets (manifest.json has no "valid"); rebuild it with ` +
        `data.validCount > 0`,
    );
  }
  const test = new Map<number, QaRecord[]>();
  for (const [key, count] of Object.entries(sets!)) {
    if (split !== "train") test.set(parseInt(key), await readDataset(`${dir}/${split}_${key}.parquet`));
    else {
      // the training questions' objectives joined to the test sizes, seeded by the data's seed
      const k = parseInt(key);
      const { distinctAnswers } = manifest.options ?? {};
      const pool = objectivePool(train);
      const seed = hashSeed(manifest.seed ?? 0, hashString("train split"));
      const items = joinedQuestions(pool, k, count, { seed, distinctAnswers });
      test.set(k, items.map((q, i) => toRecord(q, `train_${key}`, i)));
    }
  }
  const aux = [];
  for (let k = 1; k <= (manifest.auxWorlds ?? 0); k++) {
    const auxCorpus = await readCorpus(`${dir}/aux${k}_corpus.parquet`);
    aux.push({
      corpus: auxCorpus,
      search: buildSearchIndex(auxCorpus),
      train: await readDataset(`${dir}/aux${k}_train.parquet`),
    });
  }
  const questionOnce = manifest.options?.questionOnce === true;
  const data = { tokenizer, corpus, search: buildSearchIndex(corpus), train, test, aux, questionOnce, split };
  LOADED_FROM.set(data, dir);
  return data;
}

/**
 * QA datasets as Parquet in verl's schema (the same files feed verl), and
 * the search corpus as Parquet (`id`, `contents`, as Search-R1's corpus).
 *
 * @module
 */
import * as pq from "parquet-wasm";
import * as arrow from "apache-arrow";
import { normalizeTargets, type Targets } from "../env/reward.ts";
import type { Hop, SubQuestion } from "../env/questions.ts";
import type { CorpusDocument } from "../env/world.ts";
import { DataError } from "../errors.ts";
import { writeFileAtomic } from "../atomic_file.ts";

/** A chat message. */
export interface ChatMessage {
  /** `system`, `user` or `assistant`. */
  role: string;
  /** The text. */
  content: string;
}

/** One QA example as read from (or written to) a dataset file. */
export interface QaRecord {
  /** The chat prompt. */
  prompt: ChatMessage[];
  /** The last user message. */
  question: string;
  /** Aliases per objective (a plain alias list is one objective). */
  targets: string[][];
  /** `data_source`. */
  dataSource?: string;
  /** `extra_info.split`. */
  split?: string;
  /** `extra_info.index`. */
  index?: number;
  /** The resolved sub-questions (this package's own files; the scripted teacher needs them). */
  subQuestions?: SubQuestion[];
}

const STR = new arrow.Utf8();
const field = (name: string, type: arrow.DataType) => new arrow.Field(name, type, true);
const listOf = (type: arrow.DataType) => new arrow.List(field("item", type));
const PROMPT = listOf(new arrow.Struct([field("role", STR), field("content", STR)]));
const REWARD_MODEL = new arrow.Struct([
  field("style", STR),
  field("ground_truth", new arrow.Struct([field("target", listOf(listOf(STR)))])),
]);
const HOP = new arrow.Struct([field("entity", STR), field("relation", STR), field("answer", STR), field("decoy", STR)]);
const SUB_QUESTION = new arrow.Struct([
  field("text", STR),
  field("subject", STR),
  field("answer", STR),
  field("hops", listOf(HOP)),
  field("marker", STR),
]);
const EXTRA_INFO = new arrow.Struct([
  field("split", STR),
  field("index", new arrow.Int64()),
  field("objectives", new arrow.Int32()),
  field("hops", listOf(new arrow.Int32())),
  field("sub_questions", listOf(SUB_QUESTION)),
]);

/** Converts Arrow values (rows, vectors, bigints) to plain JS. */
function plain(v: unknown): unknown {
  if (v === null || v === undefined) return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof arrow.Vector) return v.toArray().map(plain);
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<unknown>).map(plain);
  if (typeof v === "object") {
    const obj = typeof (v as { toJSON?: unknown }).toJSON === "function" ? (v as { toJSON(): object }).toJSON() : v;
    return Object.fromEntries(Object.entries(obj).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

function toParquet(table: arrow.Table): Uint8Array {
  return pq.writeParquet(pq.Table.fromIPCStream(arrow.tableToIPC(table, "stream")));
}

async function readTable(path: string): Promise<arrow.Table> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    throw new DataError(`Cannot read dataset ${path}: ${(e as Error).message}`);
  }
  try {
    return arrow.tableFromIPC(pq.readParquet(bytes).intoIPCStream());
  } catch (e) {
    throw new DataError(
      `Cannot read dataset ${path}: not a valid Parquet file or truncated (${String(e).slice(0, 160)})`,
    );
  }
}

/**
 * Writes QA records as Parquet in verl's schema.
 *
 * ```text
 * data_source: string      prompt: list<{role, content}>      ability: string
 * reward_model: {style, ground_truth: {target: list<list<string>>}}
 * extra_info: {split, index: int64, objectives: int32, hops: list<int32>, sub_questions: list<…>}
 * ```
 *
 * Source: verl data preparation (`examples/data_preprocess/*.py`), Search-R1 / MEM1 QA files.
 *
 * @param path Output `.parquet` path (written atomically).
 * @param records The records.
 * @returns Nothing.
 *
 * @example Round trip
 * ```ts
 * import assert from "node:assert/strict";
 * import { readDataset, writeDataset } from "./dataset.ts";
 *
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * await writeDataset(path, [{ prompt: [{ role: "user", content: "q?" }], question: "q?", targets: [["a"], ["b", "c"]] }]);
 * const [r] = await readDataset(path);
 * assert.deepEqual(r!.targets, [["a"], ["b", "c"]]);
 * assert.equal(r!.question, "q?");
 * ```
 */
export async function writeDataset(path: string, records: readonly QaRecord[]): Promise<void> {
  const col = <T>(f: (r: QaRecord, i: number) => T) => records.map(f);
  const table = new arrow.Table({
    data_source: arrow.vectorFromArray(col((r) => r.dataSource ?? "mempo-lab"), STR),
    prompt: arrow.vectorFromArray(col((r) => r.prompt), PROMPT),
    ability: arrow.vectorFromArray(col(() => "search"), STR),
    reward_model: arrow.vectorFromArray(
      col((r) => ({ style: "rule", ground_truth: { target: r.targets } })),
      REWARD_MODEL,
    ),
    extra_info: arrow.vectorFromArray(
      col((r, i) => ({
        split: r.split ?? "",
        index: BigInt(r.index ?? i),
        objectives: r.targets.length,
        hops: (r.subQuestions ?? []).map((q) => q.hops.length),
        sub_questions: r.subQuestions ?? [],
      })),
      EXTRA_INFO,
    ),
  });
  await writeFileAtomic(path, toParquet(table));
}

/**
 * Reads QA records from Parquet: this package's files, verl / Search-R1 files
 * (`reward_model.ground_truth.target` as an alias list or a string), MEM1-style
 * files (a list of alias lists), and plain `question` + `target` columns.
 *
 * Source: verl `RLHFDataset` column conventions; Search-R1 NQ/HotpotQA files.
 *
 * @param path A `.parquet` file.
 * @returns The records; throws an `Error` naming the file and the column for bad files.
 *
 * @example A missing file
 * ```ts
 * import assert from "node:assert/strict";
 * import { readDataset } from "./dataset.ts";
 *
 * await assert.rejects(readDataset("/nonexistent.parquet"), /Cannot read dataset \/nonexistent.parquet/);
 * ```
 */
export async function readDataset(path: string): Promise<QaRecord[]> {
  const table = await readTable(path);
  const names = new Set(table.schema.fields.map((f) => f.name));
  const rows = table.toArray().map((r) => plain(r) as Record<string, unknown>);
  if (!names.has("prompt") && !names.has("question")) {
    throw new DataError(
      `Cannot read dataset ${path}: it needs a "prompt" or a "question" column, found ${[...names].join(", ")}`,
    );
  }
  if (!names.has("reward_model") && !names.has("target") && !names.has("golden_answers")) {
    throw new DataError(
      `Cannot read dataset ${path}: it needs a "reward_model" or a "target" column, found ${[...names].join(", ")}`,
    );
  }
  return rows.map((row, i) => {
    const where = `${path} row ${i}`;
    let prompt: ChatMessage[];
    if (names.has("prompt")) {
      const p = row.prompt;
      if (!Array.isArray(p) || p.some((m) => typeof m?.content !== "string" || typeof m?.role !== "string")) {
        throw new DataError(`Cannot read dataset ${where}: column "prompt" must be a list of {role, content}`);
      }
      prompt = p as ChatMessage[];
    } else {
      if (typeof row.question !== "string") {
        throw new DataError(`Cannot read dataset ${where}: column "question" must be a string`);
      }
      prompt = [{ role: "user", content: row.question }];
    }
    const user = [...prompt].reverse().find((m) => m.role === "user");
    if (user === undefined) throw new DataError(`Cannot read dataset ${where}: column "prompt" has no user message`);
    const rm = row.reward_model as { ground_truth?: { target?: unknown } | string } | undefined;
    const raw = names.has("reward_model")
      ? (typeof rm?.ground_truth === "string" ? rm.ground_truth : rm?.ground_truth?.target)
      : (row.target ?? row.golden_answers);
    let targets: string[][];
    try {
      targets = normalizeTargets(raw as Targets);
    } catch (e) {
      throw new DataError(
        `Cannot read dataset ${where}: column "${
          names.has("reward_model") ? "reward_model.ground_truth.target" : "target"
        }": ${(e as Error).message}`,
      );
    }
    const extra = (row.extra_info ?? {}) as { split?: string; index?: number; sub_questions?: SubQuestion[] };
    const record: QaRecord = { prompt, question: user.content, targets };
    if (typeof row.data_source === "string") record.dataSource = row.data_source;
    if (typeof extra.split === "string" && extra.split !== "") record.split = extra.split;
    if (typeof extra.index === "number") record.index = extra.index;
    if (Array.isArray(extra.sub_questions) && extra.sub_questions.length > 0) {
      // a file without markers (or written before them: null, read as "") reads back without the field
      // a hop without a decoy (null, or a file written before them) reads back without the field
      const hop = ({ decoy, ...h }: Hop) => typeof decoy === "string" && decoy !== "" ? { ...h, decoy } : h;
      record.subQuestions = extra.sub_questions.map(({ marker, ...q }) => {
        const sub = { ...q, hops: (q.hops ?? []).map(hop) };
        return typeof marker === "string" && marker !== "" ? { ...sub, marker } : sub;
      });
    }
    return record;
  });
}

/**
 * Writes the corpus as Parquet with columns `id`, `contents`.
 *
 * Source: Search-R1 / FlashRAG corpus format (`id`, `contents`).
 *
 * @param path Output path.
 * @param docs Documents.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCorpus, writeCorpus } from "./dataset.ts";
 *
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * await writeCorpus(path, [{ id: "a", text: "a is a city ." }]);
 * assert.deepEqual(await readCorpus(path), [{ id: "a", text: "a is a city ." }]);
 * ```
 */
export async function writeCorpus(path: string, docs: readonly CorpusDocument[]): Promise<void> {
  const table = new arrow.Table({
    id: arrow.vectorFromArray(docs.map((d) => d.id), STR),
    contents: arrow.vectorFromArray(docs.map((d) => d.text), STR),
  });
  await writeFileAtomic(path, toParquet(table));
}

/**
 * Reads a corpus written by {@linkcode writeCorpus} (or any file with `id`, `contents`).
 *
 * Source: Search-R1 / FlashRAG corpus format.
 *
 * @param path The file.
 * @returns Documents.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCorpus } from "./dataset.ts";
 *
 * await assert.rejects(readCorpus("/nonexistent.parquet"), /Cannot read dataset/);
 * ```
 */
export async function readCorpus(path: string): Promise<CorpusDocument[]> {
  const table = await readTable(path);
  const names = new Set(table.schema.fields.map((f) => f.name));
  if (!names.has("contents")) {
    throw new DataError(`Cannot read corpus ${path}: it needs a "contents" column, found ${[...names].join(", ")}`);
  }
  return table.toArray().map((r, i) => {
    const row = plain(r) as { id?: unknown; contents?: unknown };
    if (typeof row.contents !== "string") {
      throw new DataError(`Cannot read corpus ${path} row ${i}: "contents" must be a string`);
    }
    return { id: row.id === undefined || row.id === null ? String(i) : String(row.id), text: row.contents };
  });
}

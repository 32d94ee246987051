/**
 * The data of an export: the train and test sets in verl's schema, the corpus
 * (Parquet for the retrieval server, JSONL as Search-R1's corpus files), and
 * the token counts verl's config needs.
 *
 * @module
 */
import { loadData } from "../data/build.ts";
import { type QaRecord, writeCorpus, writeDataset } from "../data/dataset.ts";
import { chatTemplate } from "../env/context.ts";
import { formatInformation } from "../env/search.ts";
import { type CorpusDocument, documentSubject } from "../env/world.ts";
import { encode, type Tokenizer } from "../text/tokenizer.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { searchR1Contents } from "./search_server.ts";

/** What {@linkcode exportVerlData} wrote and measured. */
export interface VerlDataSummary {
  /** Files written, relative to the export folder. */
  files: string[];
  /** Training questions. */
  trainCount: number;
  /** Questions per test set (`test_1obj` → count). */
  testCounts: Record<string, number>;
  /** Test set files, relative to the export folder. */
  valFiles: string[];
  /** Corpus documents. */
  documents: number;
  /** The longest prompt in tokens: its messages as the chat template renders them, plus `<|assistant|> <mem>`. */
  maxPromptTokens: number;
  /** The longest tool message in tokens (the `topK` longest documents). */
  maxToolTokens: number;
  /** The longest `<information>` text in characters (verl truncates tool text by characters). */
  maxToolChars: number;
}

/**
 * Tokens of a prompt as the exported chat template renders it with the
 * generation prompt: `<|role|> content <|end|>` per message (`ChatTemplate.message`),
 * then `<|assistant|> <mem>`.
 *
 * Source: this package's chat template (`chatTemplate`, `CHAT_TEMPLATE`).
 *
 * @param tokenizer The tokenizer.
 * @param record A QA record.
 * @returns The token ids.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, decode } from "../text/tokenizer.ts";
 * import { promptTokens } from "./verl_data.ts";
 *
 * const tok = buildTokenizer(["q a"]);
 * const ids = promptTokens(tok, { prompt: [{ role: "user", content: "q" }], question: "q", targets: [["a"]] });
 * assert.equal(decode(tok, ids), "<|user|> q <|end|> <|assistant|> <mem>");
 * ```
 */
export function promptTokens(tokenizer: Tokenizer, record: QaRecord): number[] {
  const t = chatTemplate(tokenizer);
  return [...record.prompt.flatMap((m) => t.message(m.role, m.content)), ...t.turnPrefix];
}

/**
 * The longest tool message the agent can receive: the `topK` longest documents
 * in one `<information>` block, between the closing `<|end|>` of the turn and the
 * next turn's forced prefix (verl counts all of it as tool response).
 *
 * ```text
 * <|end|> <|user|> <information>[Doc 1] … [Doc k] …</information> <|end|> <|assistant|> <mem>
 * ```
 *
 * Source: this package's search tool format (`formatInformation`) and chat template.
 *
 * @param tokenizer The tokenizer.
 * @param corpus The documents.
 * @param topK Documents per search.
 * @returns A token count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { maxToolMessageTokens } from "./verl_data.ts";
 *
 * const tok = buildTokenizer(["a b c", "[Doc 1]"]);
 * // <|end|> <|user|> <information> [ doc 1 ] a b c </information> <|end|> <|assistant|> <mem>
 * assert.equal(maxToolMessageTokens(tok, [{ id: "a", text: "a b c" }], 3), 14);
 * ```
 */
export function maxToolMessageTokens(tokenizer: Tokenizer, corpus: readonly CorpusDocument[], topK: number): number {
  if (!Number.isInteger(topK) || topK < 1) {
    throw new RangeError(`Cannot measure tool messages: topK must be a positive integer, current value is ${topK}`);
  }
  const longest = [...corpus].map((d) => ({ d, n: encode(tokenizer, d.text).ids.length }))
    .sort((a, b) => b.n - a.n).slice(0, topK).map(({ d }) => ({ id: d.id, text: d.text, score: 0 }));
  const t = chatTemplate(tokenizer);
  return t.turnEnd.length + t.toolMessage(formatInformation(longest)).length + t.turnPrefix.length;
}

/**
 * The longest `<information>` text the search tool can return, in characters:
 * the `topK` longest documents in one block (verl's agent loop truncates a tool
 * response longer than `multi_turn.max_tool_response_length` characters).
 *
 * Source: this package's `formatInformation`; verl v0.7.0 `ToolAgentLoop._call_tool` (truncation by `len(text)`).
 *
 * @param corpus The documents.
 * @param topK Documents per search.
 * @returns A character count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maxInformationChars } from "./verl_data.ts";
 *
 * // "<information>[Doc 1] abc</information>"
 * assert.equal(maxInformationChars([{ id: "a", text: "abc" }, { id: "b", text: "x" }], 1), 38);
 * ```
 */
export function maxInformationChars(corpus: readonly CorpusDocument[], topK: number): number {
  if (!Number.isInteger(topK) || topK < 1) {
    throw new RangeError(`Cannot measure tool messages: topK must be a positive integer, current value is ${topK}`);
  }
  const longest = [...corpus].sort((a, b) => b.text.length - a.text.length).slice(0, topK);
  // Python's len() counts code points, JavaScript's length UTF-16 units: count code points
  return [...formatInformation(longest.map((d) => ({ id: d.id, text: d.text, score: 0 })))].length;
}

/**
 * Writes a data directory's sets and corpus for verl into `<out>/data/`:
 * `train.parquet`, `test_{k}obj.parquet` (verl's schema, everything the reward
 * needs in `reward_model.ground_truth.target`, aliases per objective, and
 * `extra_info`), `corpus.parquet` (`id`, `contents`) and `corpus.jsonl`
 * (Search-R1's `{"id", "contents": "\"title\"\ntext"}`).
 *
 * Source: verl data preparation (`examples/data_preprocess`); Search-R1 / FlashRAG corpus format.
 *
 * @param dataDir A data directory written by `deno task data` (or the trainer).
 * @param outDir The export folder.
 * @param options Documents per search (`topK`, default 3) for the tool-message budget.
 * @returns What was written and measured.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData } from "../data/build.ts";
 * import { exportVerlData } from "./verl_data.ts";
 *
 * const data = await Deno.makeTempDir();
 * await buildData(data, 1, { trainCount: 6, testCount: 2, testObjectives: [1, 2] });
 * const out = await Deno.makeTempDir();
 * const s = await exportVerlData(data, out);
 * assert.deepEqual(s.valFiles, ["data/test_1obj.parquet", "data/test_2obj.parquet"]);
 * assert.equal(s.trainCount, 6);
 * ```
 */
export async function exportVerlData(
  dataDir: string,
  outDir: string,
  options: { topK?: number } = {},
): Promise<VerlDataSummary> {
  const { topK = 3 } = options;
  const data = await loadData(dataDir);
  const dir = `${outDir}/data`;
  await Deno.mkdir(dir, { recursive: true });
  const files: string[] = [];
  await writeDataset(`${dir}/train.parquet`, data.train);
  files.push("data/train.parquet");
  const testCounts: Record<string, number> = {};
  const valFiles: string[] = [];
  for (const [k, records] of [...data.test.entries()].sort((a, b) => a[0] - b[0])) {
    await writeDataset(`${dir}/test_${k}obj.parquet`, records);
    testCounts[`test_${k}obj`] = records.length;
    valFiles.push(`data/test_${k}obj.parquet`);
  }
  files.push(...valFiles);
  await writeCorpus(`${dir}/corpus.parquet`, data.corpus);
  await writeFileAtomic(
    `${dir}/corpus.jsonl`,
    data.corpus.map((d) => JSON.stringify({ id: d.id, contents: searchR1Contents(documentSubject(d), d.text) })).join(
      "\n",
    ) + "\n",
  );
  files.push("data/corpus.parquet", "data/corpus.jsonl");
  const all = [...data.train, ...[...data.test.values()].flat()];
  return {
    files,
    trainCount: data.train.length,
    testCounts,
    valFiles,
    documents: data.corpus.length,
    maxPromptTokens: Math.max(...all.map((r) => promptTokens(data.tokenizer, r).length)),
    maxToolTokens: maxToolMessageTokens(data.tokenizer, data.corpus, topK),
    maxToolChars: maxInformationChars(data.corpus, topK),
  };
}

/**
 * The search tool: BM25 over the corpus (MiniSearch, a maintained full-text
 * engine that ranks with BM25+), top-k documents formatted as the
 * `<information>` block the agent reads.
 *
 * @module
 */
import MiniSearch from "minisearch";
import { splitWords } from "../text/tokenizer.ts";
import { type CorpusDocument, documentSubject } from "./world.ts";

/** The message returned when nothing matches. */
export const NO_RESULTS = "No search results are found.";

/** A search result. */
export interface SearchHit {
  /** Document id. */
  id: string;
  /** Document text. */
  text: string;
  /** BM25 score. */
  score: number;
}

/** A built index. */
export interface SearchIndex {
  /** Top-k documents for a query, best first. */
  search(query: string, topK?: number): SearchHit[];
  /** Number of documents. */
  readonly size: number;
}

/**
 * Indexes documents for BM25 search (tokenised like the model's tokenizer,
 * no stemming, no fuzzy matching), over two fields: the text, and its title,
 * the text's first word (the document's subject), as Wikipedia passages carry
 * their article's title. The title ranks a subject's own documents above those
 * that only name it, so the query `subject relation` brings the fact asked
 * first and, where facts come one a document, the subject's other fact next.
 *
 * ```text
 * score(d, q) = Σ_{f ∈ {title, text}} Σ_{w ∈ q} IDF_f(w) · (tf(w, d_f)·(k₁ + 1)) / (tf(w, d_f) + k₁·(1 − b + b·|d_f|/avgdl_f)) + δ    (BM25+)
 * ```
 *
 * Source: Robertson & Zaragoza 2009 (BM25); Lv & Zhai 2011 (BM25+).
 * Reference: MiniSearch 7 (`bm25: { k: 1.2, b: 0.7, d: 0.5 }`); Search-R1's retriever returns top-3 passages.
 *
 * @param docs The corpus.
 * @returns The index.
 *
 * @example The document that states a fact ranks first for "name keyword", the subject's other fact next
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildSearchIndex } from "./search.ts";
 *
 * const index = buildSearchIndex([
 *   { id: "kalmar", text: "kalmar is a city . kalmar is located in vestria ." },
 *   { id: "zorbex", text: "zorbex is a person . zorbex was born in kalmar ." },
 * ]);
 * assert.equal(index.search("kalmar located")[0]!.id, "kalmar");
 * const facts = buildSearchIndex([
 *   { id: "ka", text: "kanu founder vunom ." },
 *   { id: "vunom.lives", text: "vunom lives tesla ." },
 *   { id: "vunom.born", text: "vunom born kalmar ." },
 * ]);
 * assert.deepEqual(facts.search("vunom born").map((h) => h.id), ["vunom.born", "vunom.lives", "ka"]);
 * ```
 */
export function buildSearchIndex(docs: readonly CorpusDocument[]): SearchIndex {
  const engine = new MiniSearch<CorpusDocument>({
    fields: ["title", "text"],
    storeFields: ["text"],
    idField: "id",
    extractField: (doc, field) => field === "title" ? documentSubject(doc) : doc[field as "id" | "text"],
    tokenize: (text) => splitWords(text),
    processTerm: (term) => term,
    searchOptions: { combineWith: "OR", prefix: false, fuzzy: false },
  });
  const seen = new Set<string>();
  for (const d of docs) {
    if (seen.has(d.id)) {
      throw new TypeError(`Cannot index the corpus: document id ${JSON.stringify(d.id)} appears twice`);
    }
    seen.add(d.id);
  }
  engine.addAll(docs as CorpusDocument[]);
  return {
    size: docs.length,
    search(query, topK = 3) {
      if (!Number.isInteger(topK) || topK < 1) {
        throw new RangeError(`Cannot search: topK must be a positive integer, current value is ${topK}`);
      }
      if (splitWords(query).length === 0) return [];
      return engine.search(query).slice(0, topK).map((r) => ({
        id: String(r.id),
        text: String(r.text),
        score: r.score,
      }));
    },
  };
}

/**
 * Formats hits as the tool result the agent reads.
 *
 * ```text
 * <information>[Doc 1] text 1
 * [Doc 2] text 2</information>        or   <information>No search results are found.</information>
 * ```
 *
 * Source: Search-R1 (Jin et al. 2025, arXiv:2503.09516) tool-result format.
 *
 * @param hits Search hits.
 * @returns The `<information>` block.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatInformation } from "./search.ts";
 *
 * assert.equal(formatInformation([]), "<information>No search results are found.</information>");
 * assert.equal(formatInformation([{ id: "a", text: "x y", score: 1 }]), "<information>[Doc 1] x y</information>");
 * ```
 */
export function formatInformation(hits: readonly SearchHit[]): string {
  const body = hits.length === 0 ? NO_RESULTS : hits.map((h, i) => `[Doc ${i + 1}] ${h.text}`).join("\n");
  return `<information>${body}</information>`;
}

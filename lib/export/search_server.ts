/**
 * The package's BM25 search over HTTP, with the request and response of
 * Search-R1's retrieval server (`POST /retrieve`), which verl's search tools
 * call: `deno task serve-search DIR`.
 *
 * @module
 */
import { documentSubject } from "../env/world.ts";
import { readCorpus } from "../data/dataset.ts";
import { buildSearchIndex, type SearchIndex } from "../env/search.ts";
import { DataError } from "../errors.ts";
import { pathExists } from "../path_exists.ts";

/**
 * A document as Search-R1's corpus files and retrieval server hold it: the
 * title (the document's subject, as a Wikipedia passage carries its article's
 * title: `documentSubject`) in double quotes, a newline, the text. verl's
 * search tool shows `contents`; the export's `corpus.jsonl` stores it.
 *
 * ```text
 * contents = "\"" + title + "\"\n" + text
 * ```
 *
 * Source: Search-R1 / FlashRAG corpus format (`{"id", "contents": "\"title\"\ntext"}`).
 *
 * @param title The document's title (its subject).
 * @param text The document text.
 * @returns The `contents` field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { searchR1Contents } from "./search_server.ts";
 *
 * assert.equal(searchR1Contents("kalmar", "kalmar is a city ."), '"kalmar"\nkalmar is a city .');
 * ```
 */
export function searchR1Contents(title: string, text: string): string {
  return `"${title}"\n${text}`;
}

/** A `/retrieve` request. */
export interface RetrieveRequest {
  /** One query per search. */
  queries: string[];
  /** Documents per query. @default the server's (3) */
  topk?: number;
  /** Return `{document, score}` pairs instead of documents. @default false */
  return_scores?: boolean;
}

/** A retrieved document, as Search-R1's BM25 retriever returns it. */
export interface RetrievedDocument {
  /** Document id. */
  id: string;
  /** The title: the document's subject (`documentSubject`), which several documents share; not its id. */
  title: string;
  /** The text (what the agent's `<information>` shows). */
  text: string;
  /** `"title"\ntext`, Search-R1's corpus field. */
  contents: string;
}

/** Limits of {@linkcode retrievalHandler}. */
export interface RetrievalOptions {
  /** `topk` when the request has none. @default 3 */
  defaultTopK?: number;
  /** The largest `topk` accepted. @default 100 */
  maxTopK?: number;
  /** The most queries per request. @default 1024 */
  maxQueries?: number;
  /** The largest request body, bytes. @default 1 MiB */
  maxBodyBytes?: number;
}

/** A parsed request, or the error that names the field. */
export type ParsedRetrieveRequest =
  | { ok: true; value: { queries: string[]; topk: number; returnScores: boolean } }
  | { ok: false; error: string };

/**
 * Validates a `/retrieve` body: `queries` a list of strings, `topk` a positive
 * integer (absent or null: the default), `return_scores` a boolean; other
 * fields are ignored (as Search-R1's pydantic model does).
 *
 * Source: Search-R1 `retrieval_server.py` `QueryRequest`.
 *
 * @param body The decoded JSON.
 * @param options Limits.
 * @returns The request, or an error naming the field and its value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRetrieveRequest } from "./search_server.ts";
 *
 * assert.deepEqual(parseRetrieveRequest({ queries: ["a"] }), { ok: true, value: { queries: ["a"], topk: 3, returnScores: false } });
 * assert.deepEqual(parseRetrieveRequest({ queries: ["a"], topk: 0 }), { ok: false, error: '"topk" must be an integer in [1, 100], current value is 0' });
 * ```
 */
export function parseRetrieveRequest(body: unknown, options: RetrievalOptions = {}): ParsedRetrieveRequest {
  const { defaultTopK = 3, maxTopK = 100, maxQueries = 1024 } = options;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      ok: false,
      error: `the request body must be a JSON object with "queries", current value is ${short(body)}`,
    };
  }
  const { queries, topk, return_scores } = body as Record<string, unknown>;
  if (!Array.isArray(queries)) {
    return { ok: false, error: `"queries" must be a list of strings, current value is ${short(queries)}` };
  }
  if (queries.length > maxQueries) {
    return {
      ok: false,
      error: `"queries" must have at most ${maxQueries} entries, current length is ${queries.length}`,
    };
  }
  const bad = queries.findIndex((q) => typeof q !== "string");
  if (bad >= 0) {
    return { ok: false, error: `"queries[${bad}]" must be a string, current value is ${short(queries[bad])}` };
  }
  if (
    topk !== undefined && topk !== null &&
    !(Number.isInteger(topk) && (topk as number) >= 1 && (topk as number) <= maxTopK)
  ) {
    return { ok: false, error: `"topk" must be an integer in [1, ${maxTopK}], current value is ${short(topk)}` };
  }
  if (return_scores !== undefined && return_scores !== null && typeof return_scores !== "boolean") {
    return { ok: false, error: `"return_scores" must be true or false, current value is ${short(return_scores)}` };
  }
  return {
    ok: true,
    value: {
      queries: queries as string[],
      topk: (topk as number | null | undefined) ?? defaultTopK,
      returnScores: return_scores === true,
    },
  };
}

function short(v: unknown): string {
  const s = v === undefined ? "undefined" : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/**
 * Search-R1's `/retrieve` response for parsed queries: per query, its top-k
 * documents best first, as documents or as `{document, score}` pairs.
 *
 * ```text
 * {"result": [[{"document": {"id", "title", "text", "contents"}, "score": s}, …], …]}     (return_scores)
 * {"result": [[{"id", "title", "text", "contents"}, …], …]}                               (otherwise)
 * ```
 *
 * Source: Search-R1 `retrieval_server.py` `retrieve_endpoint`; verl `search_r1_like_utils.py` (reads `document.contents`).
 *
 * @param index The BM25 index (`buildSearchIndex`).
 * @param request A parsed request.
 * @returns The response body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildSearchIndex } from "../env/search.ts";
 * import { retrieveResult } from "./search_server.ts";
 *
 * const index = buildSearchIndex([{ id: "kalmar", text: "kalmar is a city ." }]);
 * const r = retrieveResult(index, { queries: ["kalmar", "zzz"], topk: 3, returnScores: false });
 * assert.deepEqual(r.result, [[{ id: "kalmar", title: "kalmar", text: "kalmar is a city .", contents: '"kalmar"\nkalmar is a city .' }], []]);
 * ```
 */
export function retrieveResult(
  index: SearchIndex,
  request: { queries: readonly string[]; topk: number; returnScores: boolean },
): { result: (RetrievedDocument | { document: RetrievedDocument; score: number })[][] } {
  return {
    result: request.queries.map((q) =>
      index.search(q, request.topk).map((h) => {
        const title = documentSubject(h);
        const document = { id: h.id, title, text: h.text, contents: searchR1Contents(title, h.text) };
        return request.returnScores ? { document, score: h.score } : document;
      })
    ),
  };
}

/** The request's body, read chunk by chunk and abandoned once it passes `limit` bytes (undefined then). */
async function readAtMost(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) return undefined;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/**
 * The HTTP handler: `POST /retrieve` (Search-R1's shape), `GET /health`;
 * a malformed request gets 400 with `{"error": …}` naming the field, a body
 * over the limit 413 (refused on its `Content-Length` before it is read, and
 * the read stopped once it passes the limit when it declares none), another
 * path 404, another method 405.
 *
 * Source: Search-R1 `retrieval_server.py` (FastAPI) endpoints.
 *
 * @param index The BM25 index.
 * @param options Limits.
 * @returns A `Deno.serve` handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildSearchIndex } from "../env/search.ts";
 * import { retrievalHandler } from "./search_server.ts";
 *
 * const handler = retrievalHandler(buildSearchIndex([{ id: "a", text: "a b" }]));
 * const bad = await handler(new Request("http://x/retrieve", { method: "POST", body: '{"queries": "a"}' }));
 * assert.equal(bad.status, 400);
 * assert.match((await bad.json()).error, /"queries" must be a list of strings/);
 * ```
 */
export function retrievalHandler(
  index: SearchIndex,
  options: RetrievalOptions = {},
): (request: Request) => Promise<Response> {
  const { maxBodyBytes = 1 << 20 } = options;
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/health") {
      return request.method === "GET"
        ? json(200, { status: "ok", documents: index.size })
        : json(405, { error: "use GET" }, { allow: "GET" });
    }
    if (path !== "/retrieve") return json(404, { error: `no endpoint ${path}: use POST /retrieve` });
    if (request.method !== "POST") return json(405, { error: "use POST /retrieve" }, { allow: "POST" });
    const tooLarge = (size: string) =>
      json(413, { error: `the request body must be at most ${maxBodyBytes} bytes, current size is ${size}` });
    // the declared size first: a body over the limit is refused before a byte of it is read
    const declared = request.headers.get("content-length");
    if (declared !== null) {
      if (!/^\d+$/.test(declared.trim())) {
        return json(400, {
          error: `the Content-Length header must be a byte count, current value is ${short(declared)}`,
        });
      }
      if (Number(declared) > maxBodyBytes) return tooLarge(`${Number(declared)} (Content-Length)`);
    }
    const bytes = await readAtMost(request, maxBodyBytes);
    if (bytes === undefined) return tooLarge(`over ${maxBodyBytes}`);
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (e) {
      return json(400, { error: `the request body is not valid JSON (${(e as Error).message})` });
    }
    const parsed = parseRetrieveRequest(body, options);
    if (!parsed.ok) return json(400, { error: parsed.error });
    return json(200, retrieveResult(index, parsed.value));
  };
}

/**
 * The index of an export (`DIR/data/corpus.parquet`) or of a data directory (`DIR/corpus.parquet`).
 *
 * Source: this package's export layout.
 *
 * @param dir An export folder or a data directory.
 * @returns The BM25 index.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSearchIndex } from "./search_server.ts";
 *
 * await assert.rejects(loadSearchIndex("/nonexistent"), /no corpus in \/nonexistent/);
 * ```
 */
export async function loadSearchIndex(dir: string): Promise<SearchIndex> {
  for (const path of [`${dir}/data/corpus.parquet`, `${dir}/corpus.parquet`]) {
    const found = await pathExists(path);
    if (found) return buildSearchIndex(await readCorpus(path));
  }
  throw new DataError(`Cannot serve search: no corpus in ${dir} (expected data/corpus.parquet or corpus.parquet)`);
}

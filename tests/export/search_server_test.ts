import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { buildSearchIndex, formatInformation } from "../../lib/env/search.ts";
import {
  loadSearchIndex,
  parseRetrieveRequest,
  retrievalHandler,
  retrieveResult,
  searchR1Contents,
} from "../../lib/export/search_server.ts";
import { DataError } from "../../lib/errors.ts";
import { exportVerlData } from "../../lib/export/verl_data.ts";
import { runPython, valueOf } from "./_python.ts";
import { hasTorch } from "../_helpers.ts";

const DOCS = [
  { id: "kalmar", text: "kalmar is a city . kalmar is located in vestria ." },
  { id: "zorbex", text: "zorbex is a person . zorbex was born in kalmar ." },
  { id: "vestria", text: "vestria is a country . the capital of vestria is kalmar ." },
];

Deno.test("parseRetrieveRequest() accepts Search-R1's request and names the bad field", () => {
  assert.deepEqual(parseRetrieveRequest({ queries: ["a", "b"], topk: 5, return_scores: true, extra: 1 }), {
    ok: true,
    value: { queries: ["a", "b"], topk: 5, returnScores: true },
  });
  assert.deepEqual(parseRetrieveRequest({ queries: [], topk: null }), {
    ok: true,
    value: { queries: [], topk: 3, returnScores: false },
  });
  const error = (body: unknown) => {
    const r = parseRetrieveRequest(body, { maxQueries: 4 });
    assert.equal(r.ok, false, JSON.stringify(body));
    return (r as { error: string }).error;
  };
  assert.match(error([1]), /the request body must be a JSON object with "queries", current value is \[1\]/);
  assert.match(error({ query: "a" }), /"queries" must be a list of strings, current value is undefined/);
  assert.match(error({ queries: "a" }), /"queries" must be a list of strings, current value is "a"/);
  assert.match(error({ queries: ["a", 7] }), /"queries\[1\]" must be a string, current value is 7/);
  assert.match(
    error({ queries: ["a", "b", "c", "d", "e"] }),
    /"queries" must have at most 4 entries, current length is 5/,
  );
  assert.match(error({ queries: ["a"], topk: 2.5 }), /"topk" must be an integer in \[1, 100\], current value is 2.5/);
  assert.match(error({ queries: ["a"], topk: "3" }), /"topk" must be an integer in \[1, 100\], current value is "3"/);
  assert.match(error({ queries: ["a"], topk: 101 }), /"topk" must be an integer in \[1, 100\], current value is 101/);
  assert.match(
    error({ queries: ["a"], return_scores: "yes" }),
    /"return_scores" must be true or false, current value is "yes"/,
  );
});

Deno.test("retrieveResult() and retrievalHandler(): Search-R1's response shape, 400/404/405/413 with the field named", async () => {
  const index = buildSearchIndex(DOCS);
  const scored = retrieveResult(index, { queries: ["kalmar located", "nothing here"], topk: 2, returnScores: true });
  const expected = index.search("kalmar located", 2);
  assert.deepEqual(
    scored.result[0],
    expected.map((h) => ({
      document: { id: h.id, title: h.id, text: h.text, contents: `"${h.id}"\n${h.text}` },
      score: h.score,
    })),
  );
  assert.deepEqual(scored.result[1], []);
  const handler = retrievalHandler(index, { maxBodyBytes: 200 });
  const post = (body: string, path = "/retrieve") => handler(new Request(`http://x${path}`, { method: "POST", body }));
  const ok = await post('{"queries": ["zorbex born"], "topk": 1}');
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("content-type"), "application/json");
  assert.equal((await ok.json()).result[0][0].id, "zorbex");
  const cases: [string, number, RegExp][] = [
    ["{not json", 400, /not valid JSON/],
    ['{"queries": [1]}', 400, /"queries\[0\]" must be a string/],
    ['{"queries": ["a"], "topk": -1}', 400, /"topk" must be an integer/],
    ['{"queries": ["a"], "return_scores": 1}', 400, /"return_scores" must be true or false/],
    [JSON.stringify({ queries: ["x".repeat(300)] }), 413, /at most 200 bytes, current size is (over 200|3\d\d)/],
  ];
  for (const [body, status, re] of cases) {
    const r = await post(body);
    assert.equal(r.status, status, body);
    assert.match((await r.json()).error, re);
  }
  assert.equal((await post("{}", "/search")).status, 404);
  const get = await handler(new Request("http://x/retrieve"));
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST");
  assert.deepEqual(await (await handler(new Request("http://x/health"))).json(), { status: "ok", documents: 3 });
  await assert.rejects(
    loadSearchIndex("/nonexistent"),
    (e: Error) => e instanceof DataError && /no corpus in \/nonexistent/.test(e.message),
  );
  assert.equal(searchR1Contents("zorbex", "zorbex was born ."), '"zorbex"\nzorbex was born .');
});

Deno.test("retrievalHandler(): a body over the limit is refused on its Content-Length unread, else read no further than the limit", async () => {
  const handler = retrievalHandler(buildSearchIndex(DOCS), { maxBodyBytes: 200 });
  let pulled = 0;
  const endless = () =>
    new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += 1;
        c.enqueue(new TextEncoder().encode('{"queries": ["' + "x".repeat(60)));
      },
    });
  const post = (body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
    handler(new Request("http://x/retrieve", { method: "POST", body, headers }));
  // declared too large: 413 with the declared size, and not one chunk pulled
  const declared = await post(endless(), { "content-length": "5000000" });
  assert.equal(declared.status, 413);
  assert.match((await declared.json()).error, /at most 200 bytes, current size is 5000000 \(Content-Length\)/);
  assert.ok(pulled <= 1, `${pulled} chunks pulled`); // a stream may be primed with one chunk
  // no Content-Length (chunked): read up to the limit, then stopped
  pulled = 0;
  const chunked = await post(endless());
  assert.equal(chunked.status, 413);
  assert.match((await chunked.json()).error, /at most 200 bytes, current size is over 200/);
  assert.ok(pulled <= 5, `${pulled} chunks of 75 bytes pulled for a limit of 200`);
  const bad = await post("{}", { "content-length": "twelve" });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /Content-Length header must be a byte count, current value is "twelve"/);
  // a body within the limit, declared or not, is served
  const body = '{"queries": ["zorbex born"], "topk": 1}';
  for (const r of [await post(body, { "content-length": String(body.length) }), await post(body)]) {
    assert.equal(r.status, 200);
    assert.equal((await r.json()).result[0][0].id, "zorbex");
  }
});

/** Starts `deno task serve-search DIR --port 0`; resolves with its URL once it prints its listening line. */
async function startServer(dir: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../tools/serve_search.ts", import.meta.url).pathname, dir, "--port", "0"],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/on (http:\S+)\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server exited before listening: ${out}`);
    out += value;
  }
  const url = out.match(/on (http:\S+)\n/)![1]!;
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return out;
      out += value;
    }
  })();
  return { child, url, output: rest };
}

Deno.test("serve-search over loopback: every hop of every training question gets the in-process top-k; load test; SIGTERM stops it", async () => {
  const data = await Deno.makeTempDir();
  await buildData(data, 3, {
    trainCount: 150,
    testCount: 2,
    testObjectives: [1],
    trainObjectives: [1, 2, 3],
    sizes: { countries: 4, cities: 10, people: 30, companies: 10, films: 10, distractors: 2 },
  });
  const out = await Deno.makeTempDir();
  await exportVerlData(data, out);
  const loaded = await loadData(data);
  const index = loaded.search;
  const hops = loaded.train.flatMap((r) =>
    (r.subQuestions ?? []).flatMap((q) => q.hops.map((h) => `${h.entity} ${h.relation}`))
  );
  assert.ok(hops.length >= 300, `${hops.length} hops`);
  const server = await startServer(out);
  const post = (body: unknown) =>
    fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  try {
    // 1. equality, batched as verl's tool batches: every hop, with and without scores
    for (let i = 0; i < hops.length; i += 64) {
      const queries = hops.slice(i, i + 64);
      const scored = await (await post({ queries, topk: 3, return_scores: true })).json();
      const plain = await (await post({ queries, topk: 3 })).json();
      queries.forEach((q, k) => {
        const expected = index.search(q, 3);
        assert.ok(expected.length > 0, q);
        assert.deepEqual(
          scored.result[k].map((r: { document: { id: string } }) => r.document.id),
          expected.map((h) => h.id),
          q,
        );
        assert.deepEqual(scored.result[k].map((r: { score: number }) => r.score), expected.map((h) => h.score), q);
        assert.deepEqual(plain.result[k].map((d: { text: string }) => d.text), expected.map((h) => h.text), q);
      });
    }
    console.log(
      `server = in-process search: ${hops.length} hops of ${loaded.train.length} training questions, top-3 ids, scores and texts`,
    );
    // 2. a malformed request over HTTP
    const bad = await post({ queries: "zorbex" });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error, /"queries" must be a list of strings/);
    // 3. the Python tool over HTTP gives the package's <information> block
    if (await hasTorch("Python search tool over HTTP")) {
      const sample = hops.filter((_, i) => i % 7 === 0);
      const [r] = await runPython([{ fn: "search_information", args: { url: server.url, queries: sample, topk: 3 } }]);
      assert.deepEqual(valueOf(r, "search_information"), sample.map((q) => formatInformation(index.search(q, 3))));
    }
    // 4. bounded load test: 2,000 requests, 16 in flight
    const total = 2000;
    const concurrency = 16;
    const latencies: number[] = [];
    let next = 0;
    let errors = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const q = hops[next++ % hops.length]!;
        const s = performance.now();
        const r = await post({ queries: [q], topk: 3, return_scores: true });
        const body = await r.json();
        latencies.push(performance.now() - s);
        if (r.status !== 200 || body.result[0][0].document.id !== index.search(q, 3)[0]!.id) errors += 1;
      }
    }));
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    console.log(
      `load test: ${total} requests at concurrency ${concurrency} in ${seconds.toFixed(2)} s: ` +
        `${(total / seconds).toFixed(0)} req/s, p50 ${p(0.5).toFixed(2)} ms, p99 ${
          p(0.99).toFixed(2)
        } ms, ${errors} errors`,
    );
    assert.equal(errors, 0);
    assert.equal(latencies.length, total);
  } finally {
    // 5. SIGTERM: the server finishes, says so and exits 0
    server.child.kill("SIGTERM");
    const status = await server.child.status;
    const text = await server.output;
    await server.child.stderr.cancel();
    assert.equal(status.code, 0, text);
    assert.match(text, /stopped after \d+ requests/);
    assert.ok(Number(text.match(/stopped after (\d+) requests/)![1]) >= 2000 + hops.length / 32);
  }
  await Deno.remove(data, { recursive: true });
  await Deno.remove(out, { recursive: true });
});

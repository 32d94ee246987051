// `deno task serve-search DIR`: the package's BM25 search over HTTP for verl's search tool
// (Search-R1's POST /retrieve). DIR is an export folder (deno task export-verl) or a data directory.
//   --host 127.0.0.1   --port 8000 (0: any free port)   --topk 3 (when a request has none)
// Prints "serving N documents on http://HOST:PORT/retrieve" when ready; SIGTERM or SIGINT stops it
// cleanly (in-flight requests finish), then it prints "stopped after N requests" and exits 0.
import { parseArgs } from "node:util";
import { loadSearchIndex, retrievalHandler } from "../lib/export/search_server.ts";

const USAGE = "usage: deno task serve-search DIR [--host 127.0.0.1] [--port 8000] [--topk 3]";

function fail(message: string): never {
  console.error(`error: ${message}\n${USAGE}`);
  Deno.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    args: Deno.args,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      topk: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
} catch (e) {
  fail((e as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
if (positionals.length !== 1) fail(`expected one folder, got ${positionals.length}`);
const port = Number(values.port ?? "8000");
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  fail(`--port must be an integer in [0, 65535], got ${values.port}`);
}
const topk = Number(values.topk ?? "3");
if (!Number.isInteger(topk) || topk < 1) fail(`--topk must be a positive integer, got ${values.topk}`);
const hostname = values.host ?? "127.0.0.1";

let index;
try {
  index = await loadSearchIndex(positionals[0]!);
} catch (e) {
  fail((e as Error).message);
}
const handle = retrievalHandler(index, { defaultTopK: topk });
let requests = 0;
const server = Deno.serve({
  hostname,
  port,
  onListen: ({ hostname, port }) =>
    console.log(`serving ${index.size} documents on http://${hostname}:${port}/retrieve`),
}, (request) => {
  requests += 1;
  return handle(request);
});
const stop = () => server.shutdown();
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
await server.finished;
console.log(`stopped after ${requests} requests`);
Deno.exit(0);

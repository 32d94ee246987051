// `deno task serve-search DIR`: the package's BM25 search over HTTP for verl's search tool
// (Search-R1's POST /retrieve). DIR is an export folder (deno task export-verl) or a data directory.
// Prints "serving N documents on http://HOST:PORT/retrieve" when ready; SIGTERM or SIGINT stops it
// cleanly (in-flight requests finish), then it prints "stopped after N requests" and exits 0.
import { loadSearchIndex, retrievalHandler } from "../lib/export/search_server.ts";
import { runTask } from "../lib/cli/task.ts";
import { UsageError } from "../lib/errors.ts";

const TASK = {
  name: "deno task serve-search",
  summary: "the package's BM25 search over HTTP with Search-R1's POST /retrieve (what verl's search tool calls), " +
    "on an export folder's corpus or a data directory's. SIGTERM or SIGINT stops it after the requests in flight.",
  positionals: [{ name: "DIR", help: "an export folder (deno task export-verl) or a data directory" }],
  flags: {
    host: { type: "string", value: "HOST", default: "127.0.0.1", help: "address to listen on" },
    port: { type: "integer", min: 0, default: 8000, help: "port to listen on (0: any free port; at most 65535)" },
    topk: { type: "integer", min: 1, default: 3, help: "documents per query when a request gives no topk" },
  },
  notes: "exit codes: 0 stopped by a signal, 2 bad flags, 1 no corpus in DIR.",
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  if (flags.port > 65535) {
    throw new UsageError(`--port must be an integer in [0, 65535], current value is ${flags.port}`);
  }
  const index = await loadSearchIndex(positionals[0]!);
  const handle = retrievalHandler(index, { defaultTopK: flags.topk });
  let requests = 0;
  const server = Deno.serve({
    hostname: flags.host,
    port: flags.port,
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
});

// `deno task view [DIR]`: a local web page of the runs under DIR (default runs/): each run's preset, stage and
// headline numbers, its training curves (updating while it trains), evaluation, figures and compare intervals, and
// the episode browser (each turn's memory, the tokens coloured by their advantage). Prints the page's URL; SIGINT or
// SIGTERM stops it.
import { serveView } from "../lib/view/server.ts";
import { runTask } from "../lib/cli/task.ts";
import { UsageError } from "../lib/errors.ts";

const TASK = {
  name: "deno task view",
  summary: "a local web page of the runs under DIR: the run list (preset, stage, headline numbers), each run's " +
    "training curves (live while it trains), evaluation table, figures and compare intervals, and the episode " +
    "browser (each turn's <mem>, the memory agent beside the full-context one, tokens coloured by advantage). " +
    "Listens on 127.0.0.1 only unless --host says otherwise; serves no file outside DIR.",
  positionals: [{ name: "DIR", help: "a directory of runs, or one run's folder (default runs)", optional: true }],
  flags: {
    host: {
      type: "string",
      value: "HOST",
      default: "127.0.0.1",
      help: "address to listen on (0.0.0.0: every interface, other machines included)",
    },
    port: { type: "integer", min: 0, default: 8000, help: "port to listen on (0: any free port; at most 65535)" },
  },
  notes: "examples:\n  deno task view\n  deno task view runs/quick --port 8080\n\n" +
    "exit codes: 0 stopped by a signal, 2 bad flags, 1 no such directory or the port taken.",
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  if (flags.port > 65535) {
    throw new UsageError(`--port must be an integer in [0, 65535], current value is ${flags.port}`);
  }
  const root = positionals[0] ?? "runs";
  const loopback = /^(127\.|::1$|localhost$)/.test(flags.host);
  const server = await serveView({
    root,
    hostname: flags.host,
    port: flags.port,
    onListen: (url) => {
      console.log(`mempo-lab view: ${url} (the runs under ${root}; Ctrl-C stops)`);
      if (!loopback) console.log(`listening on ${flags.host}: other machines can read ${root}`);
    },
  });
  const stop = () => server.shutdown();
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  await server.finished;
  Deno.exit(0);
});

/**
 * `deno task view`'s server: a Hono app over a directory of runs, served by
 * `Deno.serve` on the loopback interface unless told otherwise. Pages (run
 * list, run, episode browser), a JSON API of the same data, fragments the
 * pages refresh while a run trains, uPlot's files, and the files under the
 * directory, none outside it (a path that climbs out, literally or encoded,
 * or through a link, is a 404).
 *
 * ```text
 * GET /                                 the runs                     GET /api/runs                      JSON
 * GET /runs/NAME                        a run: curves, eval, figures GET /api/runs/NAME                 JSON
 * GET /runs/NAME/episodes?stage=…       the episode browser          GET /api/runs/NAME/curves          JSON
 * GET /files/PATH                       a file under the directory   GET /api/runs/NAME/episodes/STAGE  JSON
 * GET /fragments/runs, /fragments/runs/NAME/status                   GET /assets/{uplot.js,uplot.css,view.js}
 * ```
 *
 * @module
 */
import { Hono } from "hono";
import { DataError } from "../errors.ts";
import type { EpisodeRecord } from "../episodes/episode_record.ts";
import {
  agentLabel,
  episodeStages,
  findRuns,
  isRunName,
  readRunJson,
  runCurves,
  runEpisodeRecords,
  type RunRef,
  runSummary,
} from "./run_index.ts";
import { readMetricsLog } from "../train/metrics_log.ts";
import {
  type EpisodeBrowser,
  type EpisodePick,
  episodesPage,
  notFoundPage,
  runPage,
  runsPage,
  runsTable,
  statusLine,
} from "./pages.ts";

/** Files a run page shows as figures, when the run has them (its training figures are the live curves above them). */
const FIGURES = ["eval_f1.svg", "eval_tokens.svg"];

/** Content types of the files served. */
const TYPES: Readonly<Record<string, string>> = {
  svg: "image/svg+xml",
  png: "image/png",
  json: "application/json; charset=utf-8",
  jsonl: "text/plain; charset=utf-8",
  md: "text/plain; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  html: "text/plain; charset=utf-8", // a run's files are data: never a page of this origin
};

/**
 * The file a `/files/` path names under `root`, or undefined when it names
 * none there: each segment is percent-decoded alone; an empty, `.` or `..`
 * segment, one holding `/`, `\` or NUL once decoded, or a file whose real
 * path (links followed) is not under the root's is refused.
 *
 * Source: OWASP path traversal (canonicalise, then check the prefix).
 *
 * @param root The directory served.
 * @param rawPath The URL path after `/files/`, still percent-encoded.
 * @returns The file's real path, or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileUnder } from "./server.ts";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/run`);
 * await Deno.writeTextFile(`${root}/run/eval.md`, "# Evaluation");
 * assert.equal(await fileUnder(root, "run/eval.md"), `${await Deno.realPath(root)}/run/eval.md`);
 * for (const bad of ["../etc/passwd", "run/../../etc/passwd", "%2e%2e/%2e%2e/etc/passwd", "run%2F..%2F..%2Fetc%2Fpasswd", "run", "/etc/passwd", "%"]) {
 *   assert.equal(await fileUnder(root, bad), undefined, bad);
 * }
 * ```
 */
export async function fileUnder(root: string, rawPath: string): Promise<string | undefined> {
  const segments: string[] = [];
  for (const raw of rawPath.split("/")) {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (s === "" || s === "." || s === ".." || /[/\\\0]/.test(s)) return undefined;
    segments.push(s);
  }
  try {
    const base = await Deno.realPath(root);
    const real = await Deno.realPath(`${base}/${segments.join("/")}`);
    if (!real.startsWith(`${base}/`) || !(await Deno.stat(real)).isFile) return undefined;
    return real;
  } catch {
    return undefined;
  }
}

/** The eval picks' default agent: the first RL agent's memory context, else SFT's. */
const PREFERRED = ["MemPO (memory)", "GRPO (memory)", "PPO (memory)", "SFT (memory)"];

/**
 * The episode browser's choices for a pick: the sizes (test sets or RL
 * steps), the questions or episodes, the agents, and the two episodes shown,
 * every field left open filled with its default (eval: the smallest test
 * set, its first question, the first RL agent under memory context beside
 * `SFT (full)`; RL: the last step, its first episode beside the first of its
 * group whose reward differs). A pick of something the log does not hold is
 * a message for a 404.
 *
 * Source: this package.
 *
 * @param run The run.
 * @param stages Its episode logs.
 * @param records The picked log's records.
 * @param pick The form's fields.
 * @returns The browser's data, or the 404's message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { browseEpisodes } from "./server.ts";
 *
 * const r = (agent: string, contextPolicy: string, index: number) => ({ v: 1, stage: "eval", agent, contextPolicy, objectives: 1, index, question: `q${index}`, reward: 0, turns: [] });
 * const records = [r("SFT", "full", 0), r("SFT", "memory", 0), r("MemPO", "memory", 0), r("MemPO", "memory", 1)] as never[];
 * const run = { name: "q", rel: "q", dir: "runs/q" };
 * const b = browseEpisodes(run, ["eval"], records, { stage: "eval" });
 * assert.ok(!("message" in b));
 * assert.deepEqual(b.pick, { stage: "eval", size: 1, index: 0, agent: "MemPO (memory)", vs: "SFT (full)" });
 * assert.deepEqual([b.left.agent, b.right?.contextPolicy], ["MemPO", "full"]);
 * assert.deepEqual(browseEpisodes(run, ["eval"], records, { stage: "eval", size: 1, index: 7 }), { message: "No question 8 in the 1-objective test set of q's eval episodes (2 questions)" });
 * ```
 */
export function browseEpisodes(
  run: RunRef,
  stages: readonly string[],
  records: readonly EpisodeRecord[],
  pick: EpisodePick,
): EpisodeBrowser | { message: string } {
  const where = `${run.name}'s ${pick.stage} episodes`;
  if (pick.stage === "eval") {
    const sizes = [...new Set(records.map((r) => r.objectives))].sort((a, b) => a - b);
    if (sizes.length === 0) return { message: `No episode in ${where} yet` };
    const size = pick.size ?? sizes[0]!;
    const ofSize = records.filter((r) => r.objectives === size);
    if (ofSize.length === 0) return { message: `No ${size}-objective test set in ${where} (${sizes.join(", ")})` };
    const questions = [...new Map(ofSize.map((r) => [r.index, r.question])).entries()].sort((a, b) => a[0] - b[0]);
    const index = pick.index ?? questions[0]![0];
    const ofQuestion = ofSize.filter((r) => r.index === index);
    if (ofQuestion.length === 0) {
      return {
        message: `No question ${
          index + 1
        } in the ${size}-objective test set of ${where} (${questions.length} questions)`,
      };
    }
    const agents = ofQuestion.map((r) => ({ label: agentLabel(r), reward: r.reward }));
    const labels = agents.map((a) => a.label);
    const agent = pick.agent ?? PREFERRED.find((l) => labels.includes(l)) ?? labels[0]!;
    const left = ofQuestion.find((r) => agentLabel(r) === agent);
    if (left === undefined) return { message: `No episode of ${agent} on question ${index + 1} in ${where}` };
    const vs = pick.vs ?? (agent !== "SFT (full)" && labels.includes("SFT (full)") ? "SFT (full)" : "none");
    const right = vs === "none" ? undefined : ofQuestion.find((r) => agentLabel(r) === vs);
    if (vs !== "none" && right === undefined) {
      return { message: `No episode of ${vs} on question ${index + 1} in ${where}` };
    }
    return {
      run,
      stages,
      pick: { stage: "eval", size, index, agent, vs },
      sizes,
      indices: questions.map(([i, q]) => ({
        value: i,
        label: `${i + 1}: ${q.length > 70 ? `${q.slice(0, 70)}…` : q}`,
      })),
      agents,
      left,
      ...(right ? { right } : {}),
    };
  }
  const steps = [...new Set(records.map((r) => r.step ?? 0))].sort((a, b) => a - b);
  if (steps.length === 0) return { message: `No episode in ${where} yet` };
  const step = pick.size ?? steps.at(-1)!;
  const ofStep = records.filter((r) => (r.step ?? 0) === step).sort((a, b) => a.index - b.index);
  if (ofStep.length === 0) {
    return { message: `No step ${step + 1} in ${where} (steps ${steps[0]! + 1}–${steps.at(-1)! + 1})` };
  }
  const index = pick.index ?? ofStep[0]!.index;
  const left = ofStep.find((r) => r.index === index);
  if (left === undefined) {
    return { message: `No episode ${index + 1} in step ${step + 1} of ${where} (${ofStep.length} episodes)` };
  }
  const mates = ofStep.filter((r) => r.group === left.group && r.index !== index);
  const vs = pick.vs ?? String((mates.find((r) => r.reward !== left.reward) ?? mates[0])?.index ?? "none");
  const right = vs === "none" ? undefined : ofStep.find((r) => String(r.index) === vs);
  if (vs !== "none" && right === undefined) {
    return { message: `No episode ${Number(vs) + 1} in step ${step + 1} of ${where}` };
  }
  return {
    run,
    stages,
    pick: { stage: pick.stage, size: step, index, agent: left.agent, vs },
    sizes: steps,
    indices: ofStep.map((r) => ({
      value: r.index,
      label: `${r.index + 1} (question ${r.group}, ${r.objectives} obj): reward ${r.reward}`,
    })),
    agents: [],
    left,
    ...(right ? { right } : {}),
  };
}

/** uPlot's files (the package's npm dependency), read once. */
async function asset(name: "uplot.js" | "uplot.css" | "view.js"): Promise<string> {
  const url = name === "view.js"
    ? new URL("./view_client.js", import.meta.url)
    : new URL(name === "uplot.js" ? "./uPlot.iife.min.js" : "./uPlot.min.css", import.meta.resolve("uplot"));
  return await (await fetch(url)).text();
}

const intParam = (x: string | undefined) => (x !== undefined && /^\d+$/.test(x) ? Number(x) : undefined);

/**
 * The viewer as a Hono app over a directory of runs (the routes of this
 * module's table). Every read is of the files as they are now: a run being
 * written is shown as far as it is complete; an unknown run, log or episode
 * is a 404 with a message; a damaged file (a bad line before the last) a 500
 * naming it.
 *
 * Source: Hono (hono.dev) routing on web-standard Request/Response.
 *
 * @param root The directory (`runs/`, or one run's folder).
 * @returns The app (`app.fetch` serves it; `app.request` tests it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { viewApp } from "./server.ts";
 *
 * const app = viewApp(await Deno.makeTempDir());
 * assert.equal((await app.request("/runs/none")).status, 404);
 * assert.deepEqual(await (await app.request("/api/runs")).json(), []);
 * ```
 */
export function viewApp(root: string): Hono {
  const app = new Hono();
  const runOf = async (name: string) =>
    isRunName(name) ? (await findRuns(root)).find((r) => r.name === name) : undefined;
  const noRun = (name: string) => `No run ${JSON.stringify(name)} under ${root}`;
  const html = (body: string, status: 200 | 404 | 500 = 200) =>
    new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });

  app.get("/", async (c) => {
    const runs = await Promise.all((await findRuns(root)).map(runSummary));
    return c.html(runsPage(root, runs));
  });
  app.get("/fragments/runs", async (c) => c.html(runsTable(await Promise.all((await findRuns(root)).map(runSummary)))));
  app.get("/fragments/runs/:name/status", async (c) => {
    const run = await runOf(c.req.param("name"));
    return run ? c.html(statusLine(await runSummary(run))) : c.text(noRun(c.req.param("name")), 404);
  });
  app.get("/runs/:name", async (c) => {
    const run = await runOf(c.req.param("name"));
    if (run === undefined) return html(notFoundPage(noRun(c.req.param("name"))), 404);
    const rows = (await readMetricsLog(`${run.dir}/metrics.jsonl`)).rows;
    const figures = [];
    for (const f of FIGURES) if ((await Deno.stat(`${run.dir}/${f}`).catch(() => undefined))?.isFile) figures.push(f);
    return c.html(runPage({
      run,
      summary: await runSummary(run),
      charts: runCurves(rows).map(({ id, title }) => ({ id, title })),
      evaluation: await readRunJson(run.dir, "eval.json"),
      compare: await readRunJson(run.dir, "compare.json"),
      figures,
      stages: await episodeStages(run),
    }));
  });
  app.get("/runs/:name/episodes", async (c) => {
    const run = await runOf(c.req.param("name"));
    if (run === undefined) return html(notFoundPage(noRun(c.req.param("name"))), 404);
    const stages = await episodeStages(run);
    if (stages.length === 0) return html(notFoundPage(`${run.name} has kept no episodes yet`), 404);
    const stage = c.req.query("stage") ?? stages[0]!;
    if (!stages.includes(stage)) {
      return html(notFoundPage(`${run.name} has no ${JSON.stringify(stage)} episodes (${stages.join(", ")})`), 404);
    }
    const q = (k: string) => c.req.query(k) || undefined;
    const pick: EpisodePick = {
      stage,
      ...(intParam(q("size")) !== undefined ? { size: intParam(q("size")) } : {}),
      ...(intParam(q("index")) !== undefined ? { index: intParam(q("index")) } : {}),
      ...(q("agent") ? { agent: q("agent") } : {}),
      ...(q("vs") ? { vs: q("vs") } : {}),
    };
    const b = browseEpisodes(run, stages, await runEpisodeRecords(run, stage), pick);
    return "message" in b ? html(notFoundPage(b.message), 404) : c.html(episodesPage(b));
  });

  app.get("/api/runs", async (c) => c.json(await Promise.all((await findRuns(root)).map(runSummary))));
  app.get("/api/runs/:name", async (c) => {
    const run = await runOf(c.req.param("name"));
    if (run === undefined) return c.json({ error: noRun(c.req.param("name")) }, 404);
    return c.json({ summary: await runSummary(run), episodes: await episodeStages(run) });
  });
  app.get("/api/runs/:name/curves", async (c) => {
    const run = await runOf(c.req.param("name"));
    if (run === undefined) return c.json({ error: noRun(c.req.param("name")) }, 404);
    const rows = (await readMetricsLog(`${run.dir}/metrics.jsonl`)).rows;
    return c.json({ done: (await runSummary(run)).done, curves: runCurves(rows) });
  });
  app.get("/api/runs/:name/episodes/:stage", async (c) => {
    const run = await runOf(c.req.param("name"));
    if (run === undefined) return c.json({ error: noRun(c.req.param("name")) }, 404);
    const stage = c.req.param("stage");
    if (!(await episodeStages(run)).includes(stage)) {
      return c.json({ error: `${run.name} has no ${JSON.stringify(stage)} episodes` }, 404);
    }
    const size = intParam(c.req.query("size"));
    const index = intParam(c.req.query("index"));
    const agent = c.req.query("agent");
    const records = (await runEpisodeRecords(run, stage)).filter((r) =>
      (size === undefined || (stage === "eval" ? r.objectives : r.step) === size) &&
      (index === undefined || r.index === index) && (agent === undefined || agentLabel(r) === agent)
    );
    return c.json(records);
  });

  app.get("/assets/:name", async (c) => {
    const name = c.req.param("name");
    if (name !== "uplot.js" && name !== "uplot.css" && name !== "view.js") return c.text(`No asset ${name}`, 404);
    const type = name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    return new Response(await asset(name), { headers: { "content-type": type, "cache-control": "max-age=300" } });
  });
  app.get("/files/*", async (c) => {
    const raw = new URL(c.req.url).pathname.slice("/files/".length);
    const path = await fileUnder(root, raw);
    if (path === undefined) return c.text(`No file ${raw} under ${root}`, 404);
    const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
    return new Response(await Deno.readFile(path), {
      headers: { "content-type": TYPES[ext] ?? "application/octet-stream", "x-content-type-options": "nosniff" },
    });
  });

  app.notFound((c) =>
    c.req.path.startsWith("/api/")
      ? c.json({ error: `No route ${c.req.path}` }, 404)
      : html(notFoundPage(`No page ${c.req.path}`), 404)
  );
  app.onError((e, c) => {
    const message = e instanceof DataError ? e.message : `${e.name}: ${e.message}`;
    return c.req.path.startsWith("/api/") ? c.json({ error: message }, 500) : html(notFoundPage(message), 500);
  });
  return app;
}

/** Options of {@linkcode serveView}. */
export interface ServeViewOptions {
  /** The directory of runs. */
  root: string;
  /** The interface to listen on. @default "127.0.0.1" (this machine only) */
  hostname?: string;
  /** The port (0: any free one). @default 8000 */
  port?: number;
  /** Stops the server when aborted. */
  signal?: AbortSignal;
  /** Called once listening, with the page's URL. */
  onListen?: (url: string) => void;
}

/**
 * Serves {@linkcode viewApp} with `Deno.serve`, on the loopback interface
 * unless `hostname` says otherwise. A directory that does not exist, or a
 * port taken, is a `DataError` naming it.
 *
 * Source: `Deno.serve` (Deno's HTTP server), Hono's `app.fetch`.
 *
 * @param options The directory, interface, port, stop signal, listen hook.
 * @returns The server (`await server.finished` after the signal).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveView } from "./server.ts";
 *
 * const stop = new AbortController();
 * let url = "";
 * const server = await serveView({ root: await Deno.makeTempDir(), port: 0, signal: stop.signal, onListen: (u) => (url = u) });
 * assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
 * assert.equal((await fetch(url)).status, 200);
 * stop.abort();
 * await server.finished;
 * ```
 */
export async function serveView(options: ServeViewOptions): Promise<Deno.HttpServer> {
  const { root, hostname = "127.0.0.1", port = 8000, signal } = options;
  const stat = await Deno.stat(root).catch(() => undefined);
  if (!stat?.isDirectory) throw new DataError(`Cannot view ${root}: no such directory`);
  const app = viewApp(root);
  try {
    return Deno.serve({
      hostname,
      port,
      signal,
      onListen: (addr) => {
        const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
        options.onListen?.(`http://${host}:${addr.port}/`);
      },
    }, app.fetch);
  } catch (e) {
    if (e instanceof Deno.errors.AddrInUse) {
      throw new DataError(`Cannot view ${root}: port ${port} is in use on ${hostname} (pick another with --port)`);
    }
    throw e;
  }
}

// `deno run -A bench/data_parallel.ts [--rounds K] [--workers W] [--reps N] [--no-torch]`: what data parallelism over Deno
// workers would buy on this machine, before it is built. Each round times the bench's train step (batch 8 × 256)
// and scoring (32 × 256) three ways, in turn: in this process on the wasm backend's threads (today's path: only 2-D
// GEMMs reach the thread pool), in W workers at once on the single-threaded build with 1/W of the batch each (every
// op on its own core; a step is the slowest worker's), and, with torch, PyTorch on 2 threads (bench/torch_ref.py).
// The workers' figure is an upper bound of a real implementation: it leaves out the gradient all-reduce, whose copy
// it times separately (every trainable variable read out once). Prints medians over rounds; one JSON line on stdout.
import { parseArgs } from "node:util";
import { setBackend, wasmThreads } from "../lib/backend.ts";
import { createRng } from "../lib/random.ts";
import { timedWorkload } from "./_timed_workload.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    workers: { type: "string", default: "2" },
    reps: { type: "string", default: "5" },
    "no-torch": { type: "boolean", default: false },
  },
});
const [rounds, workers, reps] = [values.rounds, values.workers, values.reps].map(Number) as [number, number, number];
await setBackend("wasm");
const V = 512;
const rng = createRng(0);
const row = (n: number) => Array.from({ length: n }, () => rng.int(V));
const batches = { train: Array.from({ length: 8 }, () => row(257)), score: Array.from({ length: 32 }, () => row(257)) };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function inProcess(workload: "train" | "score"): Promise<number> {
  return median((await timedWorkload(workload, batches[workload], reps, V)).times);
}

async function inWorkers(workload: "train" | "score"): Promise<{ stepMs: number; exchangeMs: number }> {
  const rows = batches[workload];
  const per = rows.length / workers;
  const results = await Promise.all(
    Array.from(
      { length: workers },
      (_, w) =>
        new Promise<{ times: number[]; exchangeMs: number }>((resolve, reject) => {
          const worker = new Worker(new URL("./data_parallel_worker.ts", import.meta.url).href, { type: "module" });
          worker.onmessage = (e) => {
            worker.terminate();
            resolve(e.data);
          };
          worker.onerror = (e) => {
            e.preventDefault();
            worker.terminate();
            reject(new Error(`worker ${w}: ${e.message}`));
          };
          worker.postMessage({ workload, rows: rows.slice(w * per, (w + 1) * per), reps, vocab: V });
        }),
    ),
  );
  // the workers run their steps at once: a step ends when the slowest worker's does
  const steps = results[0]!.times.map((_, i) => Math.max(...results.map((r) => r.times[i]!)));
  return { stepMs: median(steps), exchangeMs: Math.max(...results.map((r) => r.exchangeMs)) };
}

async function torchRates(): Promise<Record<string, number> | null> {
  if (values["no-torch"]) return null;
  const script = new URL("./torch_ref.py", import.meta.url).pathname;
  try {
    const out = await new Deno.Command("/usr/bin/python3", { args: [script], stderr: "piped" }).output();
    return out.code === 0 ? JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) : null;
  } catch {
    return null;
  }
}

const tokens = { train: 8 * 256, score: 32 * 256 };
const log: Record<string, number[]> = {};
const push = (k: string, v: number) => (log[k] ??= []).push(v);
for (let r = 0; r < rounds; r++) {
  for (const workload of ["train", "score"] as const) {
    push(`${workload}_in_process`, tokens[workload] / (await inProcess(workload)) * 1000);
    const dp = await inWorkers(workload);
    push(`${workload}_workers`, tokens[workload] / dp.stepMs * 1000);
    if (workload === "train") push("exchange_ms", dp.exchangeMs);
  }
  const torch = await torchRates();
  if (torch !== null) {
    push("train_torch", torch.train_tokens_per_s!);
    push("score_torch", torch.score_tokens_per_s!);
  }
  console.error(`round ${r + 1}: ${Object.entries(log).map(([k, v]) => `${k} ${v.at(-1)!.toFixed(0)}`).join(", ")}`);
}
const summary: Record<string, unknown> = { threads: wasmThreads(), workers, rounds, reps };
for (const [k, v] of Object.entries(log)) summary[k] = { median: median(v), min: Math.min(...v), max: Math.max(...v) };
if (log.train_torch !== undefined) {
  // per-round ratios against PyTorch in the same round, then their medians
  for (const w of ["train", "score"]) {
    for (const side of ["in_process", "workers"]) {
      summary[`${w}_${side}_vs_torch`] = median(log[`${w}_${side}`]!.map((x, i) => x / log[`${w}_torch`]![i]!));
    }
  }
}
console.log(JSON.stringify(summary));
Deno.exit(0);

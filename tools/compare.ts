// `deno task compare runs/NAME [--seeds 0,1,2] [--objectives 4,6,8] [--resamples N]`: MemPO vs GRPO from the run's
// SFT checkpoint at each RL seed (branches in runs/NAME/compare/seed<s>/, resumable), evaluated on the run's test sets;
// writes runs/NAME/compare.json and compare.md (the paired bootstrap interval of MemPO − GRPO EM per test set).
import { parseArgs } from "node:util";
import { compareRun } from "../lib/pipeline/compare.ts";
import { getBackend, releaseBackend, setBackend } from "../lib/backend/backend.ts";

const USAGE = "usage: deno task compare runs/NAME [--seeds 0,1,2] [--objectives 4,6,8] [--resamples 10000]";

function fail(message: string): never {
  console.error(`error: ${message}\n${USAGE}`);
  Deno.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    args: Deno.args,
    options: {
      seeds: { type: "string" },
      objectives: { type: "string" },
      resamples: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
} catch (e) {
  fail((e as Error).message);
}
if (parsed.values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
const [dir, ...extra] = parsed.positionals;
if (dir === undefined || extra.length > 0) fail("give one run directory");
const list = (flag: string, text: string | undefined): number[] | undefined => {
  if (text === undefined) return undefined;
  const xs = text.split(",").map((s) => s.trim());
  if (xs.some((x) => !/^\d+$/.test(x))) {
    fail(`--${flag} must be non-negative integers separated by commas, current value is ${text}`);
  }
  return xs.map(Number);
};
const seeds = list("seeds", parsed.values.seeds);
const objectives = list("objectives", parsed.values.objectives);
const resamples = list("resamples", parsed.values.resamples)?.[0];

let lastLine = 0;
const t0 = performance.now();
const result = await compareRun(dir, {
  seeds,
  objectives,
  resamples,
  log: (line) => console.log(line),
  onProgress: (seed, e) => {
    const now = Date.now();
    if (e.step === e.total || now - lastLine > 5000) {
      const info = Object.entries(e.info).map(([k, v]) => `${k} ${typeof v === "number" ? v.toFixed(3) : v}`);
      console.log(`[seed ${seed} ${e.stage}] ${e.step}/${e.total} ${info.join(", ")}`);
      lastLine = now;
    }
  },
}).catch((e: Error) => fail(e.message));
for (const p of result.paired) {
  const f = (x: number) => x.toFixed(3);
  console.log(
    `${p.objectives} objective${p.objectives === 1 ? "" : "s"}: MemPO − GRPO EM ${f(p.meanDiff)} [${f(p.ciLow)}, ${
      f(p.ciHigh)
    }] over ${p.pairs} pairs${p.excludesZero ? " (excludes 0)" : ""}`,
  );
}
console.log(`wrote ${dir}/compare.json, compare.md (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
// a live GPUDevice at exit leaves the driver's threads racing the exit handlers
if (getBackend() === "webgpu") await setBackend("wasm").then(() => releaseBackend("webgpu"));

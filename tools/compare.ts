// `deno task compare runs/NAME [--seeds 0,1,2] [--objectives 4,6,8] [--resamples N]`: MemPO vs GRPO from the run's
// SFT checkpoint at each RL seed (branches in runs/NAME/compare/seed<s>/, resumable), evaluated on the run's test sets;
// writes runs/NAME/compare.json and compare.md (the paired bootstrap interval of MemPO − GRPO EM per test set).
import { compareRun } from "../lib/pipeline/compare.ts";
import { getBackend, releaseBackend, setBackend } from "../lib/backend.ts";
import { runTask } from "../lib/cli/task.ts";
import { onInterrupt } from "../lib/cli/interrupt.ts";
import { UsageError } from "../lib/errors.ts";
import { DATA_SPLITS, type DataSplit, splitDir } from "../lib/data/build.ts";

const TASK = {
  name: "deno task compare",
  summary: "MemPO against GRPO from a run's SFT checkpoint at several RL seeds (the run's own agents at its RL " +
    "seed, a branch in RUN/compare/seed<s>/ for each other seed), each evaluated greedily on the run's test sets; " +
    "writes RUN/compare.json and RUN/compare.md (the paired bootstrap interval of MemPO − GRPO EM per test set). " +
    "Resumable: a finished seed is reused, a stopped one resumes (Ctrl-C saves and exits 130).",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME) with a finished SFT stage" }],
  flags: {
    seeds: { type: "string", value: "LIST", default: "0,1,2", help: "RL seeds, comma-separated" },
    objectives: {
      type: "string",
      value: "LIST",
      defaultText: "every test set of the run",
      help: "objective counts of the test sets compared, comma-separated",
    },
    resamples: { type: "integer", min: 1, default: 10000, help: "bootstrap resamples" },
    split: {
      type: "string",
      value: "SPLIT",
      choices: DATA_SPLITS,
      default: "test",
      help: "the sets compared: test, valid (data.validCount's validation sets) or train (training questions " +
        "joined to the test sizes); files in RUN/<split>, the SFT start from deno task eval RUN --split <split>",
    },
  },
  notes: [
    "examples:",
    "  deno task compare runs/default",
    "  deno task compare runs/default --seeds 0,1,2,3,4 --objectives 4,8",
    "  deno task compare runs/mine --split valid        # a run whose data has data.validCount",
    "",
    "exit codes: 0 done, 130 interrupted (resumable), 2 bad flags, 1 bad or missing files.",
  ].join("\n"),
} as const;

/** A comma-separated list of non-negative integers. */
function integerList(flag: string, text: string): number[] {
  const xs = text.split(",").map((s) => s.trim());
  if (xs.some((x) => !/^\d+$/.test(x))) {
    throw new UsageError(
      `--${flag} must be non-negative integers separated by commas, current value is ${JSON.stringify(text)}`,
    );
  }
  return xs.map(Number);
}

await runTask(TASK, async ({ flags, positionals }) => {
  const dir = positionals[0]!;
  const seeds = integerList("seeds", flags.seeds);
  const objectives = flags.objectives === undefined ? undefined : integerList("objectives", flags.objectives);
  const interrupt = onInterrupt("saving the seed's checkpoint");
  let lastLine = 0;
  const t0 = performance.now();
  const result = await compareRun(dir, {
    seeds,
    objectives,
    resamples: flags.resamples,
    split: flags.split as DataSplit,
    log: (line) => console.log(line),
    shouldStop: interrupt.stopped,
    onProgress: (seed, e) => {
      const now = Date.now();
      if (e.step === e.total || now - lastLine > 5000) {
        const info = Object.entries(e.info).map(([k, v]) => `${k} ${typeof v === "number" ? v.toFixed(3) : v}`);
        console.log(`[seed ${seed} ${e.stage}] ${e.step}/${e.total} ${info.join(", ")}`);
        lastLine = now;
      }
    },
  });
  interrupt.dispose();
  // a live GPUDevice at exit leaves the driver's threads racing the exit handlers
  const release = async () => {
    if (getBackend() === "webgpu") await setBackend("wasm").then(() => releaseBackend("webgpu"));
  };
  if (result === undefined) {
    console.log(`stopped; the finished seeds are kept, resume with: deno task compare ${Deno.args.join(" ")}`);
    await release();
    return 130;
  }
  for (const p of result.paired) {
    const f = (x: number) => x.toFixed(3);
    console.log(
      `${p.objectives} objective${p.objectives === 1 ? "" : "s"}: MemPO − GRPO EM ${f(p.meanDiff)} [${f(p.ciLow)}, ${
        f(p.ciHigh)
      }] over ${p.pairs} pairs${p.excludesZero ? " (excludes 0)" : ""}`,
    );
  }
  const out = splitDir(dir, flags.split as DataSplit);
  console.log(`wrote ${out}/compare.json, compare.md (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  await release();
  return 0;
});

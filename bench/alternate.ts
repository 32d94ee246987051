// `deno task bench --alternate K [--threads N]`: K rounds of the bench on 1 thread and on N threads,
// alternating (1, N, 1, N, …), each in a process of its own with the PyTorch reference in the same
// process run; the summary gives, per workload and thread count, the median and range of our rate,
// of PyTorch's rate and of their ratio (the ratio is formed within each run, then summarised).

/** One bench process's JSON (the keys this summary reads). */
interface BenchRun {
  threads: number;
  train_tokens_per_s: number;
  score_tokens_per_s: number;
  generate_tokens_per_s: number;
  rl_step_seconds: number | null;
  gemm_peak_gflops: number;
  train_matmul_gflops: number;
  score_matmul_gflops: number;
  peak_rss_mb: number;
  torch?: Record<string, number> | string;
  ratio?: Record<string, number>;
}

/** Median and range of a list of numbers. */
export function medianRange(xs: readonly number[]): { median: number; min: number; max: number; n: number } {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s.at(-1)!, n: s.length };
}

const WORKLOADS = ["train_tokens_per_s", "score_tokens_per_s", "generate_tokens_per_s"] as const;

/** Runs the rounds and summarises them. */
export async function alternateThreads(
  options: { script: string; args: string[]; threads: number; rounds: number },
): Promise<Record<string, unknown>> {
  const counts = options.threads === 1 ? [1] : [1, options.threads];
  const runs = new Map<number, BenchRun[]>(counts.map((c) => [c, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const threads of counts) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", options.script, ...options.args, "--threads", String(threads)],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      if (out.code !== 0) throw new Error(`bench on ${threads} thread(s) exited with ${out.code}`);
      const run = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as BenchRun;
      runs.get(threads)!.push(run);
      console.error(
        `round ${round + 1}, ${threads} thread(s): ${
          WORKLOADS.map((k) => `${k.split("_")[0]} ${Math.round(run[k])}${run.ratio ? ` (${run.ratio[k]}×)` : ""}`)
            .join(", ")
        }`,
      );
    }
  }
  const summary: Record<string, unknown> = { rounds: options.rounds };
  for (const [threads, list] of runs) {
    const entry: Record<string, unknown> = {};
    for (const k of WORKLOADS) {
      entry[k] = medianRange(list.map((r) => r[k]));
      const torch = list.map((r) => (typeof r.torch === "object" ? r.torch[k] : undefined));
      if (torch.every((t) => t !== undefined)) {
        entry[`torch_${k}`] = medianRange(torch as number[]);
        entry[`ratio_${k}`] = medianRange(list.map((r) => r.ratio![k]!));
      }
    }
    for (const k of ["gemm_peak_gflops", "train_matmul_gflops", "score_matmul_gflops", "peak_rss_mb"] as const) {
      entry[k] = medianRange(list.map((r) => r[k]));
    }
    const rl = list.map((r) => r.rl_step_seconds).filter((x): x is number => x !== null);
    if (rl.length > 0) entry.rl_step_seconds = medianRange(rl);
    summary[`threads_${threads}`] = entry;
  }
  return summary;
}

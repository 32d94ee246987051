// `deno task bench --alternate K [--threads N] [--workers W]`: K rounds of the bench's sides (1 thread; N threads; N
// threads with W gradient workers) in turn (1, N, W, 1, N, W, …), each in a process of its own with the PyTorch reference
// in the same process run; the summary gives, per workload and side, the median and range of our rate, of PyTorch's
// rate and of their ratio (the ratio is formed within each run, then summarised), and of the RL step and its parts.

/** One bench process's JSON (the keys this summary reads). */
interface BenchRun {
  threads: number;
  train_tokens_per_s: number;
  score_tokens_per_s: number;
  generate_tokens_per_s: number;
  rl_step_seconds: number | null;
  rl_step_parts_seconds?: Record<string, number>;
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

/** One side of the comparison: its name in the summary and the flags its processes get. */
export interface Side {
  name: string;
  args: string[];
}

/** Runs the rounds, one process per side in turn, and summarises each side. */
export async function alternateSides(
  options: { script: string; args: string[]; sides: Side[]; rounds: number },
): Promise<Record<string, unknown>> {
  const runs = new Map<string, BenchRun[]>(options.sides.map((s) => [s.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const side of options.sides) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", options.script, ...options.args, ...side.args],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      if (out.code !== 0) throw new Error(`bench on ${side.name} exited with ${out.code}`);
      const run = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as BenchRun;
      runs.get(side.name)!.push(run);
      console.error(
        `round ${round + 1}, ${side.name}: ${
          WORKLOADS.map((k) => `${k.split("_")[0]} ${Math.round(run[k])}${run.ratio ? ` (${run.ratio[k]}×)` : ""}`)
            .join(", ")
        }${run.rl_step_seconds === null ? "" : `, RL step ${run.rl_step_seconds.toFixed(2)} s`}`,
      );
    }
  }
  const summary: Record<string, unknown> = { rounds: options.rounds };
  for (const [name, list] of runs) {
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
    for (const part of Object.keys(list[0]!.rl_step_parts_seconds ?? {})) {
      entry[`rl_step_${part}_seconds`] = medianRange(list.map((r) => r.rl_step_parts_seconds![part]!));
    }
    summary[name] = entry;
  }
  return summary;
}

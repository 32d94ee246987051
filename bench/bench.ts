// `deno task bench`: the workloads of docs/performance.md on the chosen backend (a train step, scoring, generation, and one
// RL step of the main job's configuration, its parts timed apart), and the PyTorch reference of the same model and
// workloads (bench/torch_ref.py) in the same run when /usr/bin/python3 has torch. Prints one JSON object on stdout and a
// table on stderr.
import { tf } from "../lib/tf.ts";
import { BACKEND_NAMES, type BackendName, setBackend, wasmThreads } from "../lib/backend.ts";
import { countParameters, forwardMatmulFlops, modelPreset } from "../lib/model/config.ts";
import { disposeFusedWeights, fuseWeights } from "../lib/model/transformer.ts";
import { createModel, trainableVariables } from "../lib/model/params.ts";
import { generate } from "../lib/model/generate.ts";
import { sequenceLogProbs } from "../lib/model/score.ts";
import { createAdamW } from "../lib/optim/adamw.ts";
import { collateLm, disposeLmBatch } from "../lib/train/collate.ts";
import { sftStep } from "../lib/train/sft.ts";
import { createGradientWorkers, sftWorkersFromEnv } from "../lib/train/gradient_workers.ts";
import { splitByTokens } from "../lib/train/micro_batches.ts";
import { createRng } from "../lib/random.ts";
import { runTask } from "../lib/cli/task.ts";
import { measureRlStep } from "./rl_step.ts";

/** The workloads' sizes: the benchmark's, and `--tiny`'s (a check that everything runs, in seconds). */
const SIZES = {
  full: {
    train: [8, 256],
    score: [32, 256],
    generate: [16, 64, 64],
    gemm: [[2048, 384, 128], [128, 2048, 384], [512, 512, 512]],
  },
  tiny: { train: [2, 32], score: [4, 32], generate: [2, 8, 8], gemm: [[64, 64, 64]] },
} as const;

const TASK = {
  name: "deno task bench",
  summary: "the benchmark's workloads (train, score, generate, one RL step of the default preset) on a backend, and " +
    "the PyTorch reference (bench/torch_ref.py) in the same run where /usr/bin/python3 has torch. One JSON object on " +
    "stdout, a table on stderr.",
  flags: {
    backend: { type: "string", choices: BACKEND_NAMES, default: "wasm", value: "NAME", help: "tensor backend" },
    reps: { type: "integer", min: 1, default: 5, help: "timed repetitions of each workload (the median is reported)" },
    torch: { type: "boolean", default: true, help: "run the PyTorch reference too" },
    "rl-step": {
      type: "boolean",
      default: true,
      help: "time one MemPO step of the default preset, as deno task train",
    },
    "rl-questions": {
      type: "integer",
      min: 1,
      value: "Q",
      help: "questions per step of the RL step (a smaller step than the main job's, for a shared machine)",
      defaultText: "the default preset's",
    },
    tiny: {
      type: "boolean",
      help: "every workload at a toy size, one repetition (a check that the bench runs end to end; the figures mean " +
        "nothing)",
    },
    alternate: {
      type: "integer",
      min: 1,
      value: "K",
      help: "K rounds of 1 thread, --threads, and --threads with W workers, in turn, each in a process of its own; " +
        "prints medians",
    },
    out: { type: "string", value: "FILE", help: "also write the --alternate summary to FILE (JSON)" },
    workers: {
      type: "integer",
      min: 1,
      value: "W",
      help: "train and score on W gradient workers (data parallel, the batch as W micro-batches, one core each; 1: " +
        "this thread), and the RL step's rollouts, memory scoring and reference pass on them",
      defaultText: "train and score on this thread, the RL step as deno task train (MEMPO_SFT_WORKERS)",
    },
  },
} as const;

await runTask(TASK, async ({ flags: values }) => {
  const reps = values.tiny ? 1 : values.reps; // --tiny: one timed repetition after the warm-up
  const size = values.tiny ? SIZES.tiny : SIZES.full;
  if (values.alternate !== undefined) {
    // compare side by side, alternate the sides, report medians: 1 thread, N threads, and N threads with W workers
    // (train, score, and the RL step's rollouts, memory scoring and reference pass)
    const { alternateSides } = await import("./alternate.ts");
    const forward = ["--backend", values.backend, "--reps", String(reps)];
    if (!values.torch) forward.push("--no-torch");
    if (!values["rl-step"]) forward.push("--no-rl-step");
    if (values.tiny) forward.push("--tiny");
    if (values["rl-questions"] !== undefined) forward.push("--rl-questions", String(values["rl-questions"]));
    const threads = wasmThreads() ?? 1;
    const w = values.workers ?? sftWorkersFromEnv();
    const sides = [{ name: "threads_1", args: ["--threads", "1", "--workers", "1"] }];
    if (threads > 1) sides.push({ name: `threads_${threads}`, args: ["--threads", String(threads), "--workers", "1"] });
    if (w >= 2) sides.push({ name: `workers_${w}`, args: ["--threads", String(threads), "--workers", String(w)] });
    const summary = await alternateSides({
      script: new URL(import.meta.url).pathname,
      args: forward,
      sides,
      rounds: values.alternate,
    });
    if (values.out !== undefined) await Deno.writeTextFile(values.out, JSON.stringify(summary, null, 2) + "\n");
    console.log(JSON.stringify(summary));
    return;
  }
  await setBackend(values.backend as BackendName);

  let peakRss = 0;
  const sampleRss = () => (peakRss = Math.max(peakRss, Deno.memoryUsage().rss));

  async function median(fn: () => Promise<void> | void, n: number): Promise<number> {
    await fn(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await fn();
      times.push((performance.now() - t0) / 1000);
      sampleRss();
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  }

  // the machine's GEMM peak on this backend: flag-free 2-D products of the model's shapes (the path XNNPACK takes)
  const gemm: Record<string, number> = {};
  for (const [m, k, n] of size.gemm) {
    const [a, b] = [tf.randomNormal([m, k], 0, 1, "float32", 1), tf.randomNormal([k, n], 0, 1, "float32", 2)];
    const t = await median(async () => {
      const c = tf.matMul(a, b);
      await c.data();
      c.dispose();
    }, values.tiny ? 1 : 9);
    gemm[`${m}x${k}x${n}`] = (2 * m * k * n) / t / 1e9;
    tf.dispose([a, b]);
  }
  const gemmPeak = Math.max(...Object.values(gemm));

  const V = 512;
  const config = modelPreset("bench", V);
  const model = createModel(config, { seed: 0 });
  const rng = createRng(0);
  const randomRow = (n: number) => Array.from({ length: n }, () => rng.int(V));

  const [trainB, trainT] = size.train;
  const [scoreB, scoreT] = size.score;
  const [genB, genPrompt, genNew] = size.generate;

  // 1. train: batch 8 × 256, next-token cross-entropy, backward, AdamW
  const trainRows = Array.from({ length: trainB }, () => randomRow(trainT + 1));
  const trainBatch = collateLm(trainRows.map((t) => ({ tokens: t, lossMask: t.map(() => 1) })), 0);
  const opt = createAdamW(trainableVariables(model), { lr: 1e-3, weightDecay: 0.01 });
  // with --workers W ≥ 2: the batch as W micro-batches (8 / W rows each), their gradients computed at once
  const workers = (values.workers ?? 1) < 2 ? undefined : createGradientWorkers(values.workers!);
  const trainPieces = workers === undefined ? [trainBatch] : splitByTokens(
    trainRows.map((t) => ({ tokens: t, lossMask: t.map(() => 1) })),
    Math.ceil(trainB / workers.size) * (trainT + 1),
  ).map((g) => collateLm(g, 0));
  let tTrain: number;
  let tScore: number;
  try {
    tTrain = await median(async () => void await sftStep(model, opt, trainPieces, { maxGradNorm: 1e9, workers }), reps);
    if (workers !== undefined) trainPieces.forEach(disposeLmBatch);
    disposeLmBatch(trainBatch);
    opt.dispose();

    // 2. score: batch 32 × 256, per-token log-prob of given tokens, no gradient
    const scoreRows = Array.from({ length: scoreB }, () => randomRow(scoreT + 1));
    // with --workers: W pieces of 32 / W rows, each on a worker (pieceLogProbs, as policyUpdate's reference pass)
    const cut = workers?.size ?? 1;
    const per = Math.ceil(scoreB / cut);
    const scorePieces = Array.from({ length: cut }, (_, p) => scoreRows.slice(p * per, (p + 1) * per))
      .filter((rows) => rows.length > 0)
      .map((rows) => ({
        tokens: tf.tensor2d(rows.map((r) => r.slice(0, scoreT)), undefined, "int32"),
        targets: tf.tensor2d(rows.map((r) => r.slice(1)), undefined, "int32"),
      }));
    tScore = await median(async () => {
      if (workers !== undefined) {
        tf.dispose(await workers.pieceLogProbs(model, scorePieces));
        return;
      }
      // as the package scores without gradients (scoreContinuations): the fused projections, made once per call
      const fused = fuseWeights(model);
      const lp = sequenceLogProbs(model, scorePieces[0]!.tokens, scorePieces[0]!.targets, 1, fused);
      await lp.data();
      lp.dispose();
      disposeFusedWeights(fused);
    }, reps);
    tf.dispose(scorePieces.flatMap((p) => [p.tokens, p.targets]));
  } finally {
    workers?.close(); // open workers keep the process alive
  }

  // 3. generate: batch 16, prompt 64, 64 new tokens sampled with a KV cache
  const prompts = Array.from({ length: genB }, () => randomRow(genPrompt));
  let seed = 0;
  const tGen = await median(async () => {
    await generate(model, prompts, { maxNewTokens: genNew, temperature: 1, padId: 0, seed: seed++ });
  }, Math.max(1, Math.floor(reps / 2) + 1));
  model.dispose();

  const result: Record<string, unknown> = {
    backend: values.backend,
    threads: values.backend === "wasm" ? wasmThreads() : null,
    workers: workers?.size ?? null, // the train and score steps on this many gradient workers (null: this thread)
    params: countParameters(config),
    tiny: values.tiny,
    train_tokens_per_s: (trainB * trainT) / tTrain,
    score_tokens_per_s: (scoreB * scoreT) / tScore,
    generate_tokens_per_s: (genB * genNew) / tGen,
    rl_step_seconds: null as number | null,
    peak_rss_mb: 0,
    // achieved GFLOP/s of each step's matrix products (train: forward + backward = 3× the forward's), beside the
    // backend's measured GEMM peak on the model's shapes
    gemm_gflops: gemm,
    gemm_peak_gflops: gemmPeak,
    train_matmul_gflops: (3 * forwardMatmulFlops(config, trainB, trainT)) / tTrain / 1e9,
    score_matmul_gflops: forwardMatmulFlops(config, scoreB, scoreT) / tScore / 1e9,
  };

  if (values["rl-step"]) {
    // 4. one MemPO step of deno task train's default preset; its parts as the step's metrics row logs them
    const rl = await measureRlStep({ tiny: values.tiny, workers: values.workers, questions: values["rl-questions"] });
    result.rl_step_seconds = rl.seconds;
    result.rl_step_parts_seconds = rl.parts;
    result.rl_step_episodes = rl.episodes;
    result.rl_step_workers = rl.workers;
    result.rl_step_policy = rl.policy;
    sampleRss();
  }
  result.peak_rss_mb = Math.round(peakRss / 2 ** 20);

  if (values.torch) {
    // the same model and workloads in PyTorch (2 threads), the sizes passed on
    const script = new URL("./torch_ref.py", import.meta.url).pathname;
    const args = [script, "--reps", String(reps), "--train", ...size.train.map(String), "--score"];
    args.push(...size.score.map(String), "--generate", ...size.generate.map(String));
    try {
      const out = await new Deno.Command("/usr/bin/python3", { args, stderr: "piped" }).output();
      if (out.code === 0) {
        const torch = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
        result.torch = torch;
        result.ratio = Object.fromEntries(
          ["train_tokens_per_s", "score_tokens_per_s", "generate_tokens_per_s"].map((k) => [
            k,
            Math.round(((result[k] as number) / torch[k]) * 100) / 100,
          ]),
        );
      } else result.torch = `torch_ref.py failed: ${new TextDecoder().decode(out.stderr).split("\n").at(-2)}`;
    } catch (e) {
      result.torch = `not run: ${(e as Error).message}`;
    }
  }

  const fmt = (x: unknown) => (typeof x === "number" ? x.toFixed(x < 10 ? 2 : 0) : String(x));
  const torch = result.torch as Record<string, number> | undefined;
  console.error(
    `\nbackend ${values.backend}${result.threads ? ` on ${result.threads} thread(s)` : ""}, ${result.params} ` +
      `parameters, peak RSS ${result.peak_rss_mb} MB; GEMM peak ${gemmPeak.toFixed(1)} GFLOP/s, train step's ` +
      `products ${(result.train_matmul_gflops as number).toFixed(1)}, score's ${
        (result.score_matmul_gflops as number).toFixed(1)
      }`,
  );
  console.error("workload                 mempo-lab    pytorch    ratio");
  for (const k of ["train_tokens_per_s", "score_tokens_per_s", "generate_tokens_per_s"]) {
    const t = typeof torch === "object" ? torch[k] : undefined;
    console.error(
      `${k.padEnd(24)} ${fmt(result[k]).padStart(9)} ${fmt(t).padStart(10)} ${
        t ? ((result[k] as number) / t).toFixed(2).padStart(8) : "       -"
      }`,
    );
  }
  const parts = result.rl_step_parts_seconds as Record<string, number> | undefined;
  console.error(
    `rl_step_seconds          ${fmt(result.rl_step_seconds)}${
      parts ? ` (${Object.entries(parts).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ")})` : ""
    }`,
  );
  console.log(JSON.stringify(result));
});

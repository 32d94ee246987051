// `deno run -A bench/profile.ts [--threads N] [--workload train|score|generate] [--shapes K]`: where the time of
// the benchmark's workloads goes, kernel by kernel (tf.profile: each kernel timed as it runs), with the time
// outside kernels (dispatch, JS between kernels) as the remainder of the step's wall time; with --shapes, the K
// costliest (kernel, input shapes) pairs as well. Kernels run inside others (custom gradients: "unnamed scope")
// are counted in both.
import { tf } from "../lib/tf.ts";
import { setBackend, wasmThreads } from "../lib/backend.ts";
import { threadsFromEnv } from "../lib/wasm/wasm_threads.ts";
import { modelPreset } from "../lib/model/config.ts";
import { createModel, trainableVariables } from "../lib/model/params.ts";
import { generate } from "../lib/model/generate.ts";
import { sequenceLogProbs } from "../lib/model/score.ts";
import { createAdamW } from "../lib/optim/adamw.ts";
import { collateLm, disposeLmBatch } from "../lib/train/collate.ts";
import { sftStep } from "../lib/train/sft.ts";
import { createRng } from "../lib/random.ts";
import { runTask } from "../lib/cli/task.ts";

const TASK = {
  name: "deno run -A bench/profile.ts",
  summary: "where the time of the benchmark's workloads goes, kernel by kernel (tf.profile), with the time outside " +
    "kernels (dispatch, JS between them) as the remainder of the step's wall time.",
  flags: {
    workload: { type: "string", choices: ["train", "score", "generate"], value: "NAME", help: "profile this one only" },
    top: { type: "integer", min: 1, default: 12, value: "K", help: "kernels listed per workload, costliest first" },
    shapes: { type: "integer", min: 0, default: 0, value: "K", help: "also the K costliest (kernel, input shapes)" },
  },
} as const;

await runTask(TASK, async ({ flags: values }) => {
  await setBackend("wasm", { threads: threadsFromEnv() });
  const V = 512;
  const model = createModel(modelPreset("bench", V), { seed: 0 });
  const rng = createRng(0);
  const row = (n: number) => Array.from({ length: n }, () => rng.int(V));

  const trainRows = Array.from({ length: 8 }, () => row(257));
  const trainBatch = collateLm(trainRows.map((t) => ({ tokens: t, lossMask: t.map(() => 1) })), 0);
  const opt = createAdamW(trainableVariables(model), { lr: 1e-3, weightDecay: 0.01 });
  const scoreRows = Array.from({ length: 32 }, () => row(257));
  const scoreTokens = tf.tensor2d(scoreRows.map((r) => r.slice(0, 256)), undefined, "int32");
  const scoreTargets = tf.tensor2d(scoreRows.map((r) => r.slice(1)), undefined, "int32");
  const prompts = Array.from({ length: 16 }, () => row(64));

  const workloads: Record<string, () => Promise<void>> = {
    train: async () => void await sftStep(model, opt, trainBatch, { maxGradNorm: 1e9 }),
    score: async () => {
      const lp = sequenceLogProbs(model, scoreTokens, scoreTargets);
      await lp.data();
      lp.dispose();
    },
    generate: async () => void await generate(model, prompts, { maxNewTokens: 64, temperature: 1, padId: 0, seed: 1 }),
  };

  for (const [name, fn] of Object.entries(workloads)) {
    if (values.workload !== undefined && values.workload !== name) continue;
    await fn(); // warm-up
    const t0 = performance.now();
    const info = await tf.profile(fn);
    const wall = performance.now() - t0;
    const byKernel = new Map<string, { ms: number; calls: number }>();
    for (const k of info.kernels) {
      const e = byKernel.get(k.name) ?? { ms: 0, calls: 0 };
      e.ms += k.kernelTimeMs as number;
      e.calls += 1;
      byKernel.set(k.name, e);
    }
    const byShape = new Map<string, { ms: number; calls: number }>();
    for (const k of info.kernels) {
      const key = `${k.name} ${JSON.stringify(k.inputShapes)}`;
      const e = byShape.get(key) ?? { ms: 0, calls: 0 };
      e.ms += k.kernelTimeMs as number;
      e.calls += 1;
      byShape.set(key, e);
    }
    const inKernels = [...byKernel.values()].reduce((a, e) => a + e.ms, 0);
    console.log(
      `\n${name} on ${wasmThreads()} thread(s): ${wall.toFixed(0)} ms profiled, ${
        inKernels.toFixed(0)
      } ms in ${info.kernels.length} kernels, ` +
        `${(wall - inKernels).toFixed(0)} ms outside them`,
    );
    const rows = [...byKernel].sort((a, b) => b[1].ms - a[1].ms).slice(0, values.top);
    for (const [kernel, e] of rows) {
      console.log(
        `  ${kernel.padEnd(22)} ${e.ms.toFixed(1).padStart(8)} ms ${(100 * e.ms / wall).toFixed(1).padStart(5)} %  ${
          String(e.calls).padStart(6)
        } calls`,
      );
    }
    const shapes = [...byShape].sort((a, b) => b[1].ms - a[1].ms).slice(0, values.shapes);
    if (shapes.length > 0) console.log("  by kernel and input shapes:");
    for (const [key, e] of shapes) {
      console.log(`  ${key.padEnd(64)} ${e.ms.toFixed(1).padStart(8)} ms  ${String(e.calls).padStart(6)} calls`);
    }
  }
  disposeLmBatch(trainBatch);
  opt.dispose();
  tf.dispose([scoreTokens, scoreTargets]);
  model.dispose();
});

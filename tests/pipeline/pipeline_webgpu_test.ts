// The same pipeline on webgpu: `deno task test` runs this in its webgpu process (MEMPO_SKIP_WEBGPU
// keeps it out of the main suite). tfjs's seeded multinomial draws differ by backend, so rollouts
// differ; SFT is deterministic given the data, so its metrics must equal wasm's.
import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { releaseBackend, setBackend, webgpuAvailable } from "../../lib/backend.ts";
import { type ExperimentConfig, resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

async function tinyRun(backend: "wasm" | "webgpu", dataDir: string): Promise<MetricsRow[]> {
  const config: ExperimentConfig = resolveConfig("quick", {
    backend,
    dataDir,
    sft: { steps: 2, demos: 16 },
    rl: { steps: 1, algorithms: ["grpo"], questionsPerStep: 1, groupSize: 2 },
    eval: { questions: 1, maxTurns: 2, maxTurnTokens: 16 },
  });
  const outDir = await Deno.makeTempDir();
  const result = await runPipeline({ config, outDir });
  assert.equal(result.completed, true, `${backend} run completed`);
  const text = await Deno.readTextFile(`${outDir}/metrics.jsonl`);
  await Deno.remove(outDir, { recursive: true });
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

Deno.test({
  name: "the webgpu backend runs the pipeline end to end (tiny), its SFT metrics equal wasm's",
  ignore: !(await webgpuAvailable()),
  fn: async () => {
    const dataDir = await Deno.makeTempDir();
    const before = tf.memory().numTensors;
    try {
      const gpu = await tinyRun("webgpu", dataDir);
      await setBackend("wasm");
      await releaseBackend("webgpu");
      const cpu = await tinyRun("wasm", dataDir);
      const sft = (rows: MetricsRow[], key: string) => rows.filter((r) => r.stage === "sft").map((r) => Number(r[key]));
      assert.equal(sft(gpu, "sft/loss").length, 2);
      assertAllClose(sft(gpu, "sft/loss"), sft(cpu, "sft/loss"), { rtol: 1e-4, msg: "SFT loss" });
      assertAllClose(sft(gpu, "sft/grad_norm"), sft(cpu, "sft/grad_norm"), { rtol: 1e-3, msg: "SFT grad norm" });
      const rl = gpu.filter((r) => r.stage === "grpo");
      assert.equal(rl.length, 1);
      for (const [k, v] of Object.entries(rl[0]!)) {
        if (typeof v === "number") assert.ok(Number.isFinite(v), `grpo ${k} = ${v}`);
      }
      assert.equal(tf.memory().numTensors, before, "both runs free every tensor they made");
    } finally {
      await setBackend("wasm");
      await releaseBackend("webgpu");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

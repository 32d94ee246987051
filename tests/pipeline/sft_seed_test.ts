// sft.seed: the SFT stage's seed apart from the world's. Left out, it is the experiment seed (the same run to the bit);
// set, the policy's initialisation and SFT's draws change and the data does not.
import assert from "node:assert/strict";
import { resolveConfig, sftSeed } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";

const sftRows = async (dir: string) =>
  (await Deno.readTextFile(`${dir}/metrics.jsonl`)).split("\n").filter(Boolean).map((l) => JSON.parse(l) as MetricsRow)
    .filter((r) => r.stage === "sft").map((r) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith("time/")))
    );

async function dataFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for await (const e of Deno.readDir(dir)) if (e.isFile) out.set(e.name, await Deno.readFile(`${dir}/${e.name}`));
  return out;
}

Deno.test("config: sft.seed defaults to the experiment seed and is refused by name when not an integer ≥ 0", () => {
  assert.equal(resolveConfig("quick").sft.seed, undefined);
  assert.equal(sftSeed(resolveConfig("quick", { seed: 4 })), 4);
  assert.equal(sftSeed(resolveConfig("quick", { seed: 4, sft: { seed: 0 } })), 0);
  assert.throws(
    () => resolveConfig("quick", { sft: { seed: -1 } }),
    /sft\.seed must be an integer ≥ 0, current value is -1/,
  );
  assert.throws(
    () => resolveConfig("quick", { sft: { seed: 0.5 } }),
    /sft\.seed must be an integer ≥ 0, current value is 0\.5/,
  );
});

Deno.test("pipeline: sft.seed unset and set to the experiment seed give the same SFT; another changes it, not the data", async () => {
  const dataDir = await Deno.makeTempDir();
  const quick = resolveConfig("quick");
  const config = (sft: { seed?: number }) =>
    resolveConfig("quick", {
      dataDir,
      sft: { ...quick.sft, steps: 3, warmupSteps: 1, demos: 16, ...sft },
      rl: { ...quick.rl, algorithms: [] },
    });
  const run = async (sft: { seed?: number }) => {
    const outDir = await Deno.makeTempDir();
    assert.equal((await runPipeline({ config: config(sft), outDir, evaluate: false })).completed, true);
    return {
      outDir,
      rows: await sftRows(outDir),
      weights: await Deno.readFile(`${outDir}/sft/policy.safetensors`),
      data: await dataFiles(dataDir),
    };
  };
  const unset = await run({});
  const same = await run({ seed: 0 });
  const other = await run({ seed: 1 });

  assert.equal(unset.rows.length, 3);
  assert.deepEqual(same.rows, unset.rows, "every SFT step's loss, gradient norm, rate and tokens");
  assert.deepEqual(same.weights, unset.weights, "the same weights to the bit");
  assert.notDeepEqual(other.rows.map((r) => r["sft/loss"]), unset.rows.map((r) => r["sft/loss"]));
  assert.notDeepEqual(other.weights, unset.weights);
  // the world, questions and tokenizer are the experiment seed's: the data directory is reused, byte for byte
  assert.ok(unset.data.size > 1);
  assert.deepEqual(other.data, unset.data);
  for (const dir of [dataDir, unset.outDir, same.outDir, other.outDir]) await Deno.remove(dir, { recursive: true });
});

// branchRun on a run directory made by hand: what it copies, what it leaves out, and every refusal.
import assert from "node:assert/strict";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { branchRun, SFT_FIELDS } from "../../lib/pipeline/branch.ts";
import { saveCheckpoint } from "../../lib/model/checkpoint.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { DataError, UsageError } from "../../lib/errors.ts";

const config = resolveConfig("quick", { dataDir: "data/quick" });

async function fakeRun(sftState: { step: number; done: boolean } | undefined): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config, null, 2));
  await Deno.writeTextFile(`${dir}/tokenizer.json`, '{"words":["a","b"]}');
  const rows = [
    { stage: "pretrain", step: 0, "pretrain/loss": 4 },
    { stage: "sft", step: 0, "sft/loss": 2 },
    { stage: "sft", step: 1, "sft/loss": 1 },
    { stage: "mempo", step: 0, "rollout/reward_mean": 0.5 },
    { stage: "grpo", step: 0, "rollout/reward_mean": 0.25 },
  ];
  await Deno.writeTextFile(`${dir}/metrics.jsonl`, rows.map((r) => JSON.stringify(r) + "\n").join(""));
  await Deno.mkdir(`${dir}/mempo`);
  await Deno.writeTextFile(`${dir}/mempo/policy.safetensors`, "rl weights");
  if (sftState !== undefined) {
    const model = createModel(modelPreset("tiny", 12), { seed: 1 });
    await saveCheckpoint(`${dir}/sft`, { models: { policy: model }, state: sftState });
    model.dispose();
  }
  return dir;
}

Deno.test("branchRun(): copies the tokenizer, the SFT checkpoint and the warm-up and SFT rows, writes the new config", async () => {
  const from = await fakeRun({ step: 2, done: true });
  const out = `${await Deno.makeTempDir()}/new`;
  const next = { ...config, name: "lr", rl: { ...config.rl, lr: 3e-4 }, eval: { ...config.eval, questions: 2 } };
  await branchRun(from, out, next);
  assert.deepEqual([...Deno.readDirSync(out)].map((e) => e.name).sort(), [
    "config.json",
    "metrics.jsonl",
    "sft",
    "tokenizer.json",
  ]);
  assert.deepEqual(
    await Deno.readFile(`${out}/sft/policy.safetensors`),
    await Deno.readFile(`${from}/sft/policy.safetensors`),
  );
  assert.equal(await Deno.readTextFile(`${out}/tokenizer.json`), '{"words":["a","b"]}');
  const rows = (await Deno.readTextFile(`${out}/metrics.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((r) => `${r.stage}${r.step}`), ["pretrain0", "sft0", "sft1"]);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${out}/config.json`)).rl.lr, 3e-4);
  // a previous run in the directory is replaced
  await Deno.writeTextFile(`${out}/eval.md`, "old");
  await branchRun(from, out, next);
  assert.equal(await Deno.stat(`${out}/eval.md`).then(() => true, () => false), false);
});

Deno.test("branchRun(): refuses changed SFT fields, an unfinished SFT, its own directory and a foreign one", async () => {
  assert.deepEqual([...SFT_FIELDS], ["seed", "dataDir", "model", "data", "sft", "rl.maxTurnTokens"]);
  const from = await fakeRun({ step: 2, done: true });
  const out = await Deno.makeTempDir();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ seed: 3 }, /seed is 0 in .* and 3 here: the SFT weights depend on it/],
    [{ dataDir: "data/other" }, /dataDir is "data\/quick" in .* and "data\/other" here/],
    [{ model: "tiny" }, /model is "small" in .* and "tiny" here/],
    [{ data: { ...config.data, testObjectives: [1, 2, 8] } }, /data\.testObjectives\[2\] is 4 in .* and 8 here/],
    [{ data: { ...config.data, distinctAnswers: true } }, /data\.distinctAnswers is undefined in .* and true here/],
    [{ sft: { ...config.sft, lr: 1e-3 } }, /sft\.lr is 0\.003 in .* and 0\.001 here/],
    [{ rl: { ...config.rl, maxTurnTokens: 64 } }, /rl\.maxTurnTokens is 48 in .* and 64 here/],
  ];
  // the rest of rl and eval may change
  await branchRun(from, `${out}/ok`, {
    ...config,
    rl: { ...config.rl, lr: 1, memCoef: 0 },
    eval: { ...config.eval, questions: 1 },
  });
  await Deno.remove(`${out}/ok`, { recursive: true });
  for (const [change, message] of cases) {
    await assert.rejects(branchRun(from, out, { ...config, ...change }), (e: Error) => {
      assert.ok(e instanceof UsageError, e.message);
      assert.match(e.message, message);
      return true;
    });
  }
  assert.deepEqual([...Deno.readDirSync(out)], [], "nothing written");
  await assert.rejects(branchRun(from, from, config), /the new run needs its own directory/);
  await assert.rejects(branchRun(`${out}/missing`, out, config), /Cannot branch from .*missing: no such directory/);
  await assert.rejects(
    branchRun(await fakeRun({ step: 40, done: false }), out, config),
    /its SFT stage has not finished \(step 40\)/,
  );
  await assert.rejects(branchRun(await fakeRun(undefined), out, config), /no sft\/ checkpoint/);
  // a damaged source checkpoint is refused before anything is copied
  const damaged = await fakeRun({ step: 2, done: true });
  const bytes = await Deno.readFile(`${damaged}/sft/policy.safetensors`);
  bytes[100] = bytes[100]! ^ 1;
  await Deno.writeFile(`${damaged}/sft/policy.safetensors`, bytes);
  await assert.rejects(branchRun(damaged, out, config), (e: Error) => {
    assert.ok(e instanceof DataError);
    assert.match(e.message, /Cannot branch from .*: Checkpoint .*sft: policy.safetensors is corrupted/);
    return true;
  });
  await Deno.writeTextFile(`${out}/notes.txt`, "keep me");
  await assert.rejects(branchRun(from, out, config), /is not empty and holds no run/);
  assert.equal(await Deno.readTextFile(`${out}/notes.txt`), "keep me");
});

// The released SFT policy end to end at the quick preset's size: the recipe (deno task train --stage sft) released by
// deno task release, reproduced to the bit at its seed, RL started from it, and a damaged release refused untouched.
import assert from "node:assert/strict";
import { verifyRelease } from "../../lib/release/release.ts";
import { sha256 } from "../../lib/model/checkpoint.ts";

const deno = Deno.execPath();
// the quick preset, shorter still: enough to check the plumbing, not to learn
const SMALL = { sft: { steps: 12, demos: 40 }, rl: { steps: 2 }, eval: { questions: 2 } };

async function task(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(deno, { args: ["run", "-A", ...args], env: { NO_COLOR: "1" } }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** Every file under dir (relative path → sha256). */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      if (e.isDirectory) await walk(`${d}/${e.name}`, `${rel}${e.name}/`);
      else if (e.isFile) out[`${rel}${e.name}`] = await sha256(await Deno.readFile(`${d}/${e.name}`));
    }
  };
  await walk(dir, "");
  return out;
}

Deno.test("release: --stage sft, released, reproduced to the bit; RL from it; a damaged release refused", async () => {
  const tmp = await Deno.makeTempDir();
  const config = `${tmp}/small.json`;
  await Deno.writeTextFile(config, JSON.stringify({ ...SMALL, dataDir: `${tmp}/data` }));
  const sft = (out: string, ...flags: string[]) =>
    task([
      "tools/train.ts",
      "--preset",
      "quick",
      "--stage",
      "sft",
      "--config",
      config,
      "--seed",
      "1",
      "--out",
      out,
      ...flags,
    ]);
  const first = await sft(`${tmp}/sft-a`);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /the SFT policy on the validation sets: .*sft-a\/valid\/eval\.md/);
  const validA = JSON.parse(await Deno.readTextFile(`${tmp}/sft-a/valid/eval.json`));
  assert.ok(!(await Deno.stat(`${tmp}/sft-a/eval.json`).then(() => true, () => false)), "test sets left alone");

  const release = `${tmp}/release`;
  const rel = await task(["tools/release.ts", `${tmp}/sft-a`, "--out", release, "--commit", "abc1234"]);
  assert.equal(rel.code, 0, rel.stderr);
  const manifest = await verifyRelease(release);
  assert.equal(manifest.seed, 1);
  assert.equal(manifest.command, "deno task train --stage sft --preset quick --seed 1");
  assert.deepEqual(
    Object.keys(manifest.files).sort(),
    [
      "README.md",
      "config.json",
      "generation_config.json",
      "model.safetensors",
      "sft_metrics.jsonl",
      "special_tokens_map.json",
      "tokenizer.json",
      "tokenizer_config.json",
    ],
  );
  const own = validA.rows.filter((r: { agent: string; contextPolicy: string }) =>
    r.agent === "SFT" && r.contextPolicy === "memory"
  );
  assert.deepEqual(manifest.validation.map((r) => r.em), own.map((r: { em: number }) => r.em));

  // the recipe again at the same seed, named by --sft-seed this time (sft.seed 1 = the world's seed 1): the same
  // validation numbers and the same weights, to the bit, and the flag in the run's config and the manifest's command
  const second = await sft(`${tmp}/sft-b`, "--sft-seed", "1");
  assert.equal(second.code, 0, second.stderr);
  const validB = JSON.parse(await Deno.readTextFile(`${tmp}/sft-b/valid/eval.json`));
  assert.deepEqual(validB.rows.map((r: { em: number }) => r.em), validA.rows.map((r: { em: number }) => r.em));
  const again = await task(["tools/release.ts", `${tmp}/sft-b`, "--out", `${tmp}/release-b`, "--commit", "abc1234"]);
  assert.equal(again.code, 0, again.stderr);
  const manifestB = await verifyRelease(`${tmp}/release-b`);
  assert.equal(JSON.parse(await Deno.readTextFile(`${tmp}/sft-b/config.json`)).sft.seed, 1);
  assert.equal(JSON.parse(await Deno.readTextFile(`${tmp}/sft-a/config.json`)).sft.seed, undefined);
  assert.equal(manifestB.command, "deno task train --stage sft --preset quick --seed 1 --sft-seed 1");
  assert.equal(manifestB.seed, 1);
  assert.equal(manifestB.files["model.safetensors"]!.sha256, manifest.files["model.safetensors"]!.sha256);

  // the main job's path: RL from the release, then the evaluation
  const runConfig = `${tmp}/run.json`;
  // RL from the release at seed 1, as the main job runs it, into `out`
  const trainFrom = (out: string) =>
    task(["tools/train.ts", "--preset", "quick", "--config", runConfig, "--seed", "1", "--out", out]);
  await Deno.writeTextFile(runConfig, JSON.stringify({ ...SMALL, dataDir: `${tmp}/data`, release }));
  const rl = await trainFrom(`${tmp}/rl`);
  assert.equal(rl.code, 0, rl.stderr);
  assert.match(
    rl.stdout,
    /from the released SFT policy in .*release \(SFT seed 1, commit abc1234; every file's sha256 checked\)/,
  );
  const rows = (await Deno.readTextFile(`${tmp}/rl/metrics.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(rows.filter((r) => r.stage === "sft").length, 12); // the release's SFT rows, then RL's
  assert.equal(rows.filter((r) => r.stage === "mempo").length, 2);
  assert.ok((await Deno.stat(`${tmp}/rl/eval.json`)).isFile);

  // one byte of the weights changed: refused with the file and both hashes, no stack trace, nothing written
  const bytes = await Deno.readFile(`${release}/model.safetensors`);
  bytes[bytes.length - 5]! ^= 1;
  await Deno.writeFile(`${release}/model.safetensors`, bytes);
  const before = await tree(tmp);
  const bad = await trainFrom(`${tmp}/rl2`);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /model\.safetensors has sha256 [0-9a-f]{64} \(\d+ bytes\), the manifest says [0-9a-f]{64}/);
  assert.match(bad.stderr, /nothing was trained from it/);
  assert.doesNotMatch(bad.stderr, /^\s+at /m);
  assert.deepEqual(await tree(tmp), before);

  // a config that disagrees on a field the SFT weights depend on is refused by name
  await Deno.writeTextFile(`${release}/model.safetensors`, "");
  await Deno.writeFile(`${release}/model.safetensors`, bytes.map((b, i) => (i === bytes.length - 5 ? b ^ 1 : b)));
  await Deno.writeTextFile(
    runConfig,
    JSON.stringify({ ...SMALL, dataDir: `${tmp}/data`, release, sft: { ...SMALL.sft, lr: 1e-3 } }),
  );
  const other = await trainFrom(`${tmp}/rl3`);
  assert.equal(other.code, 2, other.stderr);
  assert.match(other.stderr, /sft\.lr is 0\.003 there and 0\.001 here: the SFT weights depend on it/);
});

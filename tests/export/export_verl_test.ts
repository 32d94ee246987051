import assert from "node:assert/strict";
import { buildData } from "../../lib/data/build.ts";
import { readDataset } from "../../lib/data/dataset.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { saveCheckpoint } from "../../lib/model/checkpoint.ts";
import { tokenizerFromJson } from "../../lib/text/tokenizer.ts";
import { exportVerl, PYTHON_FILES } from "../../lib/export/export_verl.ts";
import { mempoJson, VERL_VERSION } from "../../lib/export/verl_config.ts";
import { DataError, UsageError } from "../../lib/errors.ts";
import { hasTorch, PYTHON } from "../_helpers.ts";

const FAKE_VERL = new URL("../_fixtures/fake_verl/", import.meta.url).pathname;

/** A run directory as `deno task train` leaves it: config.json, tokenizer.json, an sft/ checkpoint. */
async function fakeRun() {
  const data = await Deno.makeTempDir();
  await buildData(data, 2, {
    trainCount: 12,
    testCount: 2,
    testObjectives: [1, 2],
    sizes: { countries: 2, cities: 4, people: 6, companies: 3, films: 3, distractors: 0 },
  });
  const run = await Deno.makeTempDir();
  const config = resolveConfig("quick", { dataDir: data, name: "t", model: "tiny", rl: { memCredit: "infomem" } });
  await Deno.writeTextFile(`${run}/config.json`, JSON.stringify(config));
  const tokenizerText = await Deno.readTextFile(`${data}/tokenizer.json`);
  await Deno.writeTextFile(`${run}/tokenizer.json`, tokenizerText);
  const m = createModel(modelPreset("tiny", tokenizerFromJson(tokenizerText).size), { seed: 4 });
  await saveCheckpoint(`${run}/sft`, { models: { policy: m } });
  m.dispose();
  return { data, run, config };
}

async function python(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const out = await new Deno.Command(PYTHON, { args, ...options }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("exportVerl() writes the folder from a run: data, model, mempo_verl, config, README; refuses to clobber", async () => {
  const { data, run, config } = await fakeRun();
  const out = `${await Deno.makeTempDir()}/export`;
  const s = await exportVerl({ run, out });
  for (
    const f of [
      "data/train.parquet",
      "data/test_1obj.parquet",
      "data/corpus.jsonl",
      "model/config.json",
      "model/model.safetensors",
      "model/tokenizer.json",
      "model/tokenizer_config.json",
      "model/special_tokens_map.json",
      "model/generation_config.json",
      "reward_fn.py",
      ...PYTHON_FILES,
      "config/mempo.overrides",
      "config/grpo.overrides",
      "config/mempo.json",
      "config/tool_config.yaml",
      "config/run.sh",
      "README.md",
      "export.json",
    ]
  ) {
    assert.ok(s.files.includes(f), `${f} not listed`);
    await Deno.stat(`${out}/${f}`);
  }
  assert.deepEqual(s.algorithms, ["mempo", "grpo"]);
  assert.deepEqual(
    (await readDataset(`${out}/data/train.parquet`)).map((r) => r.targets),
    (await readDataset(`${data}/train.parquet`)).map((r) => r.targets),
  );
  const manifest = JSON.parse(await Deno.readTextFile(`${out}/export.json`));
  assert.deepEqual([manifest.verl_version, manifest.checkpoint, manifest.source], ["0.7.0", "sft", run]);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${out}/config/mempo.json`)), mempoJson(config));
  assert.match(await Deno.readTextFile(`${out}/config/mempo.overrides`), /^# verl 0\.7\.0 overrides for mempo/);
  assert.doesNotMatch(await Deno.readTextFile(`${out}/README.md`), /joined/);
  // a run whose RL joined questions says so (its train.parquet is the questions unjoined)
  const joined = {
    ...config,
    data: { ...config.data, questionOnce: true },
    rl: { ...config.rl, joinShare: 0.5, joinMax: 2 },
  };
  await Deno.writeTextFile(`${run}/config.json`, JSON.stringify(joined));
  const outJoined = await Deno.makeTempDir();
  await exportVerl({ run, out: outJoined });
  assert.match(await Deno.readTextFile(`${outJoined}/README.md`), /This run's RL joined 50 % of its questions/);
  await Deno.writeTextFile(`${run}/config.json`, JSON.stringify(config));
  // again into the same export: allowed; into a folder that holds something else: refused, nothing written
  await exportVerl({ run, out });
  const other = await Deno.makeTempDir();
  await Deno.writeTextFile(`${other}/notes.txt`, "mine");
  await assert.rejects(
    exportVerl({ run, out: other }),
    (e: Error) => e instanceof DataError && /the folder is not empty and holds no earlier export/.test(e.message),
  );
  assert.deepEqual([...Deno.readDirSync(other)].map((e) => e.name), ["notes.txt"]);
  // a run whose tokenizer is not its data's
  const tj = JSON.parse(await Deno.readTextFile(`${run}/tokenizer.json`));
  const [w1, w2] = Object.keys(tj.model.vocab).slice(20, 22) as [string, string];
  [tj.model.vocab[w1], tj.model.vocab[w2]] = [tj.model.vocab[w2], tj.model.vocab[w1]];
  await Deno.writeTextFile(`${run}/tokenizer.json`, JSON.stringify(tj));
  await assert.rejects(exportVerl({ run, out }), /tokenizer\.json differs from the run's tokenizer\.json/);
  await assert.rejects(exportVerl({ out }), /give a run directory or a data directory/);
});

/** Every file under a directory with the SHA-256 of its bytes and its mode, sorted by path. */
async function treeHash(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/${prefix}`)) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory) out.push(`${rel}/`, ...(await treeHash(dir, `${rel}/`)));
    else {
      const bytes = await Deno.readFile(`${dir}/${rel}`);
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      const mode = ((await Deno.stat(`${dir}/${rel}`)).mode ?? 0) & 0o777;
      out.push(`${rel} ${[...digest].map((b) => b.toString(16).padStart(2, "0")).join("")} ${mode.toString(8)}`);
    }
  }
  return out.sort();
}

Deno.test("exportVerl(): a refused or failed export leaves an earlier export byte for byte, and nothing beside it", async () => {
  const { data, run } = await fakeRun();
  const parent = await Deno.makeTempDir();
  const out = `${parent}/export`;
  await exportVerl({ run, out });
  const before = await treeHash(out);
  assert.ok(before.length > 30 && before.some((l) => l.startsWith("model/model.safetensors ")), before.join("\n"));
  assert.ok(before.some((l) => /^config\/run\.sh \S+ 755$/.test(l)), "run.sh is executable");
  const other = await Deno.makeTempDir();
  await buildData(other, 3, { trainCount: 12, testCount: 2, testObjectives: [1, 2] });
  const refusals: [Parameters<typeof exportVerl>[0], (e: Error) => boolean][] = [
    // --checkpoint outside the run's stages (sft and rl.algorithms: mempo, grpo)
    [
      { run, out, checkpoint: "ppo" },
      (e) => e instanceof UsageError && /--checkpoint must be one of sft, mempo, grpo .*"ppo"/.test(e.message),
    ],
    // a stage of the run that has no checkpoint yet
    [{ run, out, checkpoint: "mempo" }, (e) => e instanceof DataError && /no config\.json in .*mempo/.test(e.message)],
    [
      { out, checkpoint: "sft", data },
      (e) => e instanceof UsageError && /a checkpoint needs a run directory/.test(e.message),
    ],
    // a data directory that is not the run's (its tokenizer differs): refused before its sets are written
    [
      { run, out, data: other },
      (e) => e instanceof DataError && /differs from the run's tokenizer\.json .*--data/.test(e.message),
    ],
    [
      { run, out, data: `${parent}/nodata` },
      (e) => e instanceof DataError && /Cannot export .*cannot read .*nodata\/tokenizer\.json/.test(e.message),
    ],
    [
      { run: `${parent}/norun`, out },
      (e) => e instanceof DataError && /norun\/config\.json: no such file/.test(e.message),
    ],
  ];
  for (const [options, check] of refusals) {
    await assert.rejects(exportVerl(options), check, JSON.stringify(options));
    assert.deepEqual(await treeHash(out), before, JSON.stringify(options));
  }
  // a checkpoint damaged after the earlier export: its hash no longer matches
  const weights = `${run}/sft/policy.safetensors`;
  const bytes = await Deno.readFile(weights);
  bytes[bytes.length - 1]! ^= 1;
  await Deno.writeFile(weights, bytes);
  await assert.rejects(
    exportVerl({ run, out }),
    (e: Error) => e instanceof DataError && /policy\.safetensors is corrupted/.test(e.message),
  );
  assert.deepEqual(await treeHash(out), before);
  // a failure while building (the data directory's train set is damaged after the checks): out is as it was
  bytes[bytes.length - 1]! ^= 1;
  await Deno.writeFile(weights, bytes);
  const train = await Deno.readFile(`${data}/train.parquet`);
  await Deno.writeFile(`${data}/train.parquet`, train.subarray(0, 100));
  await assert.rejects(
    exportVerl({ run, out }),
    (e: Error) => e instanceof DataError && /train\.parquet/.test(e.message),
  );
  assert.deepEqual(await treeHash(out), before);
  assert.deepEqual([...Deno.readDirSync(parent)].map((e) => e.name), ["export"], "no staging directory left beside it");
  // and a good export replaces it whole
  await Deno.writeFile(`${data}/train.parquet`, train);
  await exportVerl({ run, out });
  assert.deepEqual(await treeHash(out), before, "the same run exports to the same bytes");
  assert.deepEqual([...Deno.readDirSync(parent)].map((e) => e.name), ["export"]);
  await Deno.remove(parent, { recursive: true });
  await Deno.remove(other, { recursive: true });
});

Deno.test("PYTHON_FILES lists every Python file of the package's python/ folder", async () => {
  const root = new URL("../../python/", import.meta.url).pathname;
  const walk = async (prefix: string): Promise<string[]> => {
    const found: string[] = [];
    for await (const e of Deno.readDir(`${root}${prefix}`)) {
      if (e.isDirectory && e.name !== "__pycache__") found.push(...(await walk(`${prefix}${e.name}/`)));
      else if (e.isFile && e.name.endsWith(".py")) found.push(`${prefix}${e.name}`);
    }
    return found;
  };
  assert.deepEqual([...PYTHON_FILES].sort(), (await walk("")).sort());
});

Deno.test("exportVerl() from a data directory alone: no model, overrides for every algorithm", async () => {
  const { data } = await fakeRun();
  const out = await Deno.makeTempDir();
  const s = await exportVerl({ data, out });
  assert.deepEqual(s.algorithms, ["mempo", "grpo", "ppo"]);
  assert.ok(!s.files.some((f) => f.startsWith("model/")));
  assert.match(
    await Deno.readTextFile(`${out}/README.md`),
    /no `model\/`: this export was made from a data directory alone/,
  );
  // the default preset's RL joins questions, but a data directory alone was trained by nothing
  assert.doesNotMatch(await Deno.readTextFile(`${out}/README.md`), /joined/);
  assert.match(await Deno.readTextFile(`${out}/config/ppo.overrides`), /\nalgorithm\.adv_estimator=gae\n/);
});

Deno.test("in the export, `python3 -c 'import mempo_verl'` works with only torch; reward_fn.py loads by path as verl loads it", async () => {
  if (!(await hasTorch("importing the exported package"))) return;
  const { run } = await fakeRun();
  const out = await Deno.makeTempDir();
  await exportVerl({ run, out });
  const imported = await python(
    ["-c", "import mempo_verl; print(mempo_verl.VERL_VERSION, mempo_verl.VERL_REGISTERED)"],
    {
      cwd: out,
    },
  );
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(
    imported.stdout.trim(),
    `${VERL_VERSION} False`,
    "the Python package's VERL_VERSION is the TypeScript one",
  );
  // verl's load_extern_object: spec_from_file_location on custom_reward_function.path, from another folder
  const script = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("custom_module", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
response = "none </mem> <think> t </think> <search> q </search> <|end|> <|user|> <information>[ doc 1 ] x</information> <|end|> <|assistant|> <mem> a </mem> <think> t </think> <answer> Kalmar ; b </answer>"
print(json.dumps(module.compute_score("mempo-lab", response, {"target": [["kalmar"], ["b"]]}, {"index": 0})))
from mempo_verl import load_options
print(json.dumps(load_options(sys.argv[2]).to_json()))
`;
  const r = await python(["-c", script, `${out}/reward_fn.py`, `${out}/config/mempo.json`], { cwd: "/" });
  assert.equal(r.code, 0, r.stderr);
  const [score, options] = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(score, { score: 1, em: 1, f1: 1, format_valid: 1, answered: 1, objectives: 2 });
  assert.deepEqual([options.threshold, options.variant, options.span_weight], [0.5, "infomem", "token"]);
  // an unknown key in mempo.json is refused by name
  await Deno.writeTextFile(`${out}/config/bad.json`, JSON.stringify({ mem_coeff: 1 }));
  const bad = await python([
    "-c",
    "import sys; from mempo_verl import load_options; load_options(sys.argv[1])",
    `${out}/config/bad.json`,
  ], { cwd: out });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /unknown key\(s\) \['mem_coeff'\]/);
});

Deno.test("with verl importable (a stand-in with verl 0.7.0's signatures), mempo_verl registers its estimators, parser and tool", async () => {
  if (!(await hasTorch("registration with verl"))) return;
  const { run } = await fakeRun();
  const out = await Deno.makeTempDir();
  await exportVerl({ run, out });
  const script = `
import asyncio, json, math, torch
import mempo_verl
from verl.trainer.ppo import core_algos, ray_trainer
from verl.experimental.agent_loop.tool_parser import ToolParser
from verl.tools.base_tool import BaseTool
from mempo_verl import verl_hooks

class Data:
    def __init__(self, batch, non_tensor_batch):
        self.batch, self.non_tensor_batch = batch, non_tensor_batch

rewards = torch.tensor([[0., 1.], [0., 0.], [0., 1.]])
mask = torch.ones(3, 2)
mem = torch.tensor([[math.nan, 0.3], [math.nan, -0.1], [math.nan, 0.2]])
spans = torch.tensor([[-1, 1], [-1, 1], [-1, -1]])
data = Data({"token_level_rewards": rewards, "response_mask": mask, "memory_rewards": mem, "memory_spans_unused": 0,
             "memory_span_ids": spans}, {"uid": ["q", "q", "q"]})
out = ray_trainer.compute_advantage(data, "mempo")
direct, _ = mempo_verl.compute_mempo_advantage(rewards, mask, ["q", "q", "q"], mem, spans, options=verl_hooks.default_options())
grpo = ray_trainer.compute_advantage(Data({"token_level_rewards": rewards, "response_mask": mask}, {"uid": ["q", "q", "q"]}), "mempo_grpo")
try:
    core_algos.get_adv_estimator_fn("mempo")(token_level_rewards=rewards, response_mask=mask, index=["q"] * 3, config=None)
    missing = ""
except ValueError as e:
    missing = str(e)

class Tok:
    def decode(self, ids):
        return " ".join(ids)

parser = ToolParser.get_tool_parser("mempo_search", Tok())
_, calls = asyncio.run(parser.extract_tool_calls(["none", "</mem>", "<think>", "t", "</think>", "<search>", "zorbex", "born", "</search>"]))
_, none = asyncio.run(parser.extract_tool_calls(["none", "</mem>", "<think>", "t", "</think>", "<answer>", "a", "</answer>"]))
print(json.dumps({
    "registered": mempo_verl.VERL_REGISTERED,
    "estimators": sorted(core_algos.ADV_ESTIMATOR_REGISTRY),
    "equal": torch.equal(out.batch["advantages"], direct),
    "memory_moved": bool((direct[0, 1] != direct[0, 0]).item()),
    "dispatched": ray_trainer.CALLS,
    "grpo": grpo.batch["advantages"].tolist(),
    "missing": missing,
    "calls": [[c.name, json.loads(c.arguments)] for c in calls],
    "none": len(none),
    "tool": issubclass(verl_hooks.MempoSearchTool, BaseTool),
}))
`;
  const r = await python(["-c", script], {
    cwd: out,
    env: { PYTHONPATH: `${FAKE_VERL}:${out}`, MEMPO_OPTIONS: `${out}/config/mempo.json` },
  });
  assert.equal(r.code, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  assert.equal(got.registered, true);
  assert.deepEqual(got.estimators, ["mempo", "mempo_grpo"]);
  assert.equal(got.equal, true, "compute_advantage(…, 'mempo') passes the batch's memory fields to the estimator");
  assert.equal(got.memory_moved, true);
  assert.deepEqual(
    got.dispatched,
    ["mempo_grpo"],
    "the wrapper handles mempo itself and leaves other estimators to verl",
  );
  const a = 1 / (Math.sqrt(1 / 3) + 1e-6) * (2 / 3); // scores 1, 0, 1: mean 2/3, Bessel std √(1/3)
  assert.ok(Math.abs(got.grpo[0][0] - a / 2) < 1e-5, JSON.stringify(got.grpo));
  assert.match(got.missing, /adv_estimator=mempo needs the batch's memory_rewards \[B, K\] and memory_span_ids/);
  assert.deepEqual(got.calls, [["search", { query: "zorbex born" }]]);
  assert.equal(got.none, 0);
  assert.equal(got.tool, true);
});

import assert from "node:assert/strict";
import { buildData, loadData } from "../../../lib/data/build.ts";
import { resolveConfig } from "../../../lib/config/experiment.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { createModel } from "../../../lib/model/params.ts";
import { saveCheckpoint } from "../../../lib/model/checkpoint.ts";
import { copyDiagnosticMarkdown } from "../../../research/diagnostics/copy_diagnostic.ts";
import { diagnoseRun } from "../../../research/diagnostics/diagnose_run.ts";

/** A saved run of the quick preset: its config, tokenizer, an empty metrics log and untrained checkpoints. */
async function savedRun(algorithms: ("mempo" | "grpo")[]): Promise<string> {
  const dataDir = await Deno.makeTempDir();
  const sets = { trainCount: 4, testCount: 1, testObjectives: [1, 2], sizes: { distractors: 0 } };
  await buildData(dataDir, 0, sets);
  const run = await Deno.makeTempDir();
  const config = resolveConfig("quick", {
    dataDir,
    data: { ...resolveConfig("quick").data, ...sets },
    rl: { ...resolveConfig("quick").rl, algorithms },
    eval: { questions: 1, maxTurns: 3, maxTurnTokens: 24 },
  });
  await Deno.writeTextFile(`${run}/config.json`, JSON.stringify(config));
  await Deno.copyFile(`${dataDir}/tokenizer.json`, `${run}/tokenizer.json`);
  await Deno.writeTextFile(`${run}/metrics.jsonl`, "");
  const size = (await loadData(dataDir)).tokenizer.size;
  for (const [stage, seed] of [["sft", 1], ...algorithms.map((a, i) => [a, 2 + i] as const)] as const) {
    const model = createModel(modelPreset(config.model, size), { seed });
    await saveCheckpoint(`${run}/${stage}`, { models: { policy: model }, state: { step: 0, done: true } });
    model.dispose();
  }
  return run;
}

Deno.test("diagnoseRun(): the SFT and RL policies of a saved run, per test set, in diagnostics.md and .json", async () => {
  const run = await savedRun(["mempo"]);
  const { diagnostics, outDir } = await diagnoseRun(run);
  assert.equal(outDir, run);
  assert.deepEqual(diagnostics.map((d) => d.objectives), [1, 2]);
  // the model agents, each once (SFT runs under both context policies), scored on some tokens of each set
  for (const d of diagnostics) {
    assert.deepEqual(Object.keys(d.agents), ["SFT", "MemPO"]);
    for (const cells of Object.values(d.agents)) assert.ok(cells.reduce((n, c) => n + c.total, 0) > 0);
  }
  const md = await Deno.readTextFile(`${run}/diagnostics.md`);
  assert.equal(md, `# Diagnostics\n\n${copyDiagnosticMarkdown(diagnostics)}\n`);
  assert.match(md, /\n## Where the agents go wrong\n/);
  const json = JSON.parse(await Deno.readTextFile(`${run}/diagnostics.json`));
  assert.deepEqual(json.diagnostics, JSON.parse(JSON.stringify(diagnostics)));
  // the evaluation's files are the evaluation's: none written here
  await assert.rejects(Deno.stat(`${run}/eval.md`), Deno.errors.NotFound);
});

Deno.test("deno task diagnose: --help, and a run that is not one refused in one line", async () => {
  const tool = new URL("../../../research/diagnose.ts", import.meta.url).pathname;
  const run = (args: string[]) => new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, ...args] }).output();
  const help = await run(["--help"]);
  assert.equal(help.code, 0);
  assert.match(new TextDecoder().decode(help.stdout), /^deno task diagnose: .+\n\nusage: deno task diagnose RUN/);
  const missing = await run([`${await Deno.makeTempDir()}/nothing`]);
  assert.equal(missing.code, 1);
  assert.match(new TextDecoder().decode(missing.stderr), /^error: Cannot read .*nothing\/config\.json/m);
});

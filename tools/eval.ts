// `deno task eval runs/NAME`: evaluate a run's checkpoints again and rewrite its eval.md / eval.json.
import { loadData } from "../lib/data/build.ts";
import { unseenTestWords } from "../lib/data/coverage.ts";
import { loadCheckpoint } from "../lib/model/checkpoint.ts";
import { modelPreset } from "../lib/model/config.ts";
import { releaseBackend, setBackend } from "../lib/backend/backend.ts";
import { type Algorithm, teacherMemory } from "../lib/config/experiment.ts";
import { copyDiagnostics } from "../lib/diagnostics/copy_diagnostic.ts";
import { evalMarkdown, evaluateAgents, runAgents } from "../lib/eval/evaluate.ts";
import { checkRunTokenizer, writeEvalFiles } from "../lib/pipeline/pipeline.ts";
import { readRunConfig } from "../lib/pipeline/run_config.ts";
import { runTask } from "../lib/cli/task.ts";
import { equalRewardGroups, equalRewardOptions } from "../lib/eval/equal_reward_groups.ts";
import { longestContexts, trainingContexts } from "../lib/eval/longest_contexts.ts";
import { sftDemoOptions, teacherDemonstrations } from "../lib/train/demos.ts";
import type { Model } from "../lib/model/params.ts";

const TASK = {
  name: "deno task eval",
  summary: "evaluate a run's SFT and RL checkpoints again on its test sets (its config's eval section) and " +
    "rewrite its eval.md, eval.json and plots. Every checkpoint is checked first: its files' hashes, and its " +
    "architecture against its weights and against the run's config.",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME) written by deno task train" }],
  flags: {},
} as const;

await runTask(TASK, async ({ positionals }) => {
  const dir = positionals[0]!;
  const config = await readRunConfig(dir);
  await setBackend(config.backend);
  // the checkpoints' token ids belong to the tokenizer saved with the run: refuse data whose tokenizer differs
  await checkRunTokenizer(dir, config.dataDir, "evaluate");
  const data = await loadData(config.dataDir);
  const expect = modelPreset(config.model, data.tokenizer.size);
  const models: Model[] = [];
  const load = async (name: string) => {
    const m = (await loadCheckpoint(`${dir}/${name}`, { trainable: false, expect })).models.policy!;
    models.push(m);
    return m;
  };
  try {
    const sft = await load("sft");
    const trained = new Map<Algorithm, Model>();
    for (const a of config.rl.algorithms) trained.set(a, await load(a));
    const agents = runAgents(sft, trained, data.tokenizer, teacherMemory(config));
    const t0 = performance.now();
    const rows = await evaluateAgents(
      agents,
      data,
      config.eval,
      (r) =>
        console.log(`${r.agent} (${r.contextPolicy}) ${r.objectives} obj: EM ${r.em.toFixed(2)} F1 ${r.f1.toFixed(2)}`),
    );
    // where the agents go wrong: teacher-forced accuracy on the teacher's turns of every test set
    const diagnostic = await copyDiagnostics(agents, data, {
      questions: config.eval.questions,
      maxTurnTokens: config.eval.maxTurnTokens,
      seed: config.seed,
      memory: teacherMemory(config),
    });
    // the training curves come from the run's log
    const metrics = await Deno.readTextFile(`${dir}/metrics.jsonl`).then(
      (text) => text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)),
      () => [],
    );
    const timings: Record<string, number> = { eval: (performance.now() - t0) / 1000 };
    // how often GRPO would learn nothing at each test size, and the longest contexts each agent met
    const t1 = performance.now();
    const groups = await equalRewardGroups(
      agents.filter((a) => "model" in a && a.contextPolicy === "memory"),
      data,
      equalRewardOptions(config),
      (r) => console.log(`${r.agent} ${r.objectives} obj: ${(100 * r.equalShare).toFixed(0)} % of groups equal`),
    );
    timings.groups = (performance.now() - t1) / 1000;
    const demos = await teacherDemonstrations(data, sftDemoOptions(config, sft.config.maxPositions));
    const contexts = longestContexts(rows, trainingContexts(demos.episodes, demos.policies, metrics));
    await writeEvalFiles(dir, rows, timings, diagnostic, unseenTestWords(data), metrics, {
      equalRewardGroups: groups,
      longestContexts: contexts,
    });
    console.log(evalMarkdown(rows));
    console.log(`wrote ${dir}/eval.md, eval.json and its figures`);
  } finally {
    for (const m of models) m.dispose();
  }
  // a live GPUDevice at exit leaves the driver's threads racing the exit handlers
  if (config.backend === "webgpu") await setBackend("wasm").then(() => releaseBackend("webgpu"));
});

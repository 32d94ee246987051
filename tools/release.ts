// `deno task release RUN...`: choose among finished SFT runs (deno task train --stage sft) by the rule below, fixed
// before any run, and write the chosen policy as the repository's released SFT policy (release/sft by default).
import { runTask } from "../lib/cli/task.ts";
import { readRunConfig } from "../lib/config/run_config.ts";
import { readEvalJson } from "../lib/pipeline/eval_json.ts";
import { splitDir } from "../lib/data/build.ts";
import { loadCheckpoint, readCheckpointRecord } from "../lib/model/checkpoint.ts";
import { setBackend } from "../lib/backend.ts";
import { tokenizerFromJson } from "../lib/text/tokenizer.ts";
import { readMetricsLog } from "../lib/train/metrics_log.ts";
import { SFT_STAGES } from "../lib/stages.ts";
import { RELEASE_DIR, releaseCommand, type ReleaseValidationRow, writeRelease } from "../lib/release/release.ts";
import { sftSeed } from "../lib/config/experiment.ts";
import { DataError } from "../lib/errors.ts";
import { type EvalRow, SFT_AGENT } from "../lib/eval/evaluate.ts";

/** The rule, fixed before the runs: the SFT policy's mean validation EM (memory context) over every validation size. */
const RULE = "the highest mean EM of the memory-context SFT policy over every validation set (RUN/valid/eval.json); " +
  "a tie goes to the lower SFT seed";

const TASK = {
  name: "deno task release",
  summary: "choose among finished SFT runs (deno task train --stage sft, each evaluated on its validation sets) by " +
    `one rule: ${RULE}; write the chosen SFT policy as the released one (Hugging Face layout, README, the warm-up ` +
    "and SFT rows, manifest.json with the command, commit, seed, config, validation numbers and every file's sha256)",
  positionals: [{ name: "RUN", help: "SFT runs (runs/NAME), one or more", variadic: true }],
  flags: {
    out: { type: "string", value: "DIR", defaultText: RELEASE_DIR, help: "the release folder (replaced)" },
    commit: {
      type: "string",
      value: "SHA",
      defaultText: "git rev-parse --short HEAD",
      help: "the commit whose code trained the runs",
    },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const candidates = [];
  for (const run of positionals) {
    const config = await readRunConfig(run);
    const record = await readCheckpointRecord(`${run}/sft`);
    if (record?.state.done !== true) throw new DataError(`Cannot release ${run}: its SFT stage has not finished`);
    const json = await readEvalJson(splitDir(run, "valid"), `release ${run}`);
    const rows = (Array.isArray(json?.rows) ? json.rows : []) as EvalRow[];
    const own = rows.filter((r) => r.agent === SFT_AGENT && r.contextPolicy === "memory");
    if (own.length === 0) {
      throw new DataError(
        `Cannot release ${run}: ${splitDir(run, "valid")}/eval.json has no SFT (memory) rows ` +
          `(deno task train --stage sft evaluates them; or deno task eval ${run} --split valid)`,
      );
    }
    const validation: ReleaseValidationRow[] = own.map((r) => ({
      objectives: r.objectives,
      em: r.em,
      ...(r.kept ? { kept: r.kept.needed } : {}),
    }));
    const score = validation.reduce((a, r) => a + r.em, 0) / validation.length;
    candidates.push({ run, config, record, validation, score });
  }
  candidates.sort((a, b) => b.score - a.score || sftSeed(a.config) - sftSeed(b.config));
  const chosen = candidates[0]!;
  for (const c of candidates) {
    console.log(`${c === chosen ? "*" : " "} ${c.run} (SFT seed ${sftSeed(c.config)}): ${c.score.toFixed(3)}`);
  }
  await setBackend(chosen.config.backend);
  const { models } = await loadCheckpoint(`${chosen.run}/sft`, { trainable: false });
  const model = models.policy!;
  try {
    // the run's own tokenizer (its checkpoints' ids); a missing or damaged one is refused naming the file
    const tokenizerPath = `${chosen.run}/tokenizer.json`;
    const tokenizerText = await Deno.readTextFile(tokenizerPath).catch((e: Error) => {
      throw new DataError(`Cannot release ${chosen.run}: cannot read ${tokenizerPath} (${e.message})`);
    });
    let tokenizer;
    try {
      tokenizer = tokenizerFromJson(tokenizerText, tokenizerPath);
    } catch (e) {
      throw new DataError(`Cannot release ${chosen.run}: ${(e as Error).message.split("\n")[0]}`);
    }
    const sftRows = (await readMetricsLog(`${chosen.run}/metrics.jsonl`)).rows.filter((r) =>
      SFT_STAGES.includes(String(r.stage))
    );
    const commit = flags.commit ??
      new TextDecoder().decode(
        (await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"], stdout: "piped" }).output()).stdout,
      ).trim();
    const out = flags.out ?? RELEASE_DIR;
    const manifest = await writeRelease(out, model, tokenizer, {
      command: releaseCommand(chosen.config),
      commit,
      seed: sftSeed(chosen.config),
      sftSteps: Number(chosen.record.state.step),
      config: chosen.config,
      validation: chosen.validation,
      choice: {
        rule: RULE,
        candidates: candidates.map((c) => ({ run: c.run, seed: sftSeed(c.config), score: c.score })),
      },
    }, sftRows);
    const bytes = Object.values(manifest.files).reduce((a, f) => a + f.bytes, 0);
    console.log(`released ${chosen.run} to ${out}: ${Object.keys(manifest.files).length} files, ${bytes} bytes`);
  } finally {
    model.dispose();
  }
});

/**
 * The teacher-forced diagnostics of a saved run: where its policies go wrong
 * on the scripted teacher's turns of every test set, written to
 * `RUN/diagnostics.md` and `RUN/diagnostics.json` (`deno task diagnose`).
 * The evaluation (`deno task train`, `deno task eval`) does not run them.
 *
 * @module
 */
import type { Algorithm } from "../../lib/config/experiment.ts";
import { teacherMemory } from "../../lib/config/experiment.ts";
import { readRunConfig } from "../../lib/config/run_config.ts";
import { type DataSplit, splitDir } from "../../lib/data/build.ts";
import { runAgents } from "../../lib/eval/evaluate.ts";
import type { Model } from "../../lib/model/params.ts";
import { openRun } from "../../lib/pipeline/open_run.ts";
import { writeFileAtomic } from "../../lib/atomic_file.ts";
import { type CopyDiagnostic, copyDiagnosticMarkdown, copyDiagnostics } from "./copy_diagnostic.ts";

/** What {@linkcode diagnoseRun} wrote. */
export interface DiagnoseRunResult {
  /** One diagnostic per test set, by objectives ascending (`copyDiagnostics`). */
  diagnostics: CopyDiagnostic[];
  /** The folder of `diagnostics.md` and `diagnostics.json` (`RUN`, or `RUN/valid`, `RUN/train`). */
  outDir: string;
}

/**
 * Loads a run's SFT checkpoint and each of `rl.algorithms`' checkpoints,
 * scores them teacher-forced on the scripted teacher's turns of every set of
 * the split ({@linkcode copyDiagnostics}, with the run's `eval.questions`,
 * `eval.maxTurnTokens`, seed and teacher memory), and writes
 * `diagnostics.md` (the tables of {@linkcode copyDiagnosticMarkdown}) and
 * `diagnostics.json`. The models are disposed whatever throws.
 *
 * ```text
 * openRun(run) → load sft, rl.algorithms → runAgents → copyDiagnostics → diagnostics.md, diagnostics.json
 * ```
 *
 * Source: this package (a research instrument of its task design; the tables eval.md held before).
 *
 * @param dir The run directory (written by `deno task train`).
 * @param split The sets scored: `test` (files in RUN), `valid` or `train` (files in RUN/valid, RUN/train). @default "test"
 * @returns The diagnostics and where they were written.
 *
 * @example A run without its checkpoints is refused, naming it
 * ```ts
 * import assert from "node:assert/strict";
 * import { diagnoseRun } from "./diagnose_run.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await assert.rejects(() => diagnoseRun(dir), /config\.json/);
 * ```
 */
export async function diagnoseRun(dir: string, split: DataSplit = "test"): Promise<DiagnoseRunResult> {
  const config = await readRunConfig(dir);
  const { data, load } = await openRun(dir, config, { split });
  const models: Model[] = [];
  try {
    const sft = await load("sft");
    models.push(sft);
    const trained = new Map<Algorithm, Model>();
    for (const a of config.rl.algorithms) {
      const m = await load(a);
      models.push(m);
      trained.set(a, m);
    }
    const memory = teacherMemory(config);
    const diagnostics = await copyDiagnostics(runAgents(sft, trained, data.tokenizer, memory), data, {
      questions: config.eval.questions,
      maxTurnTokens: config.eval.maxTurnTokens,
      seed: config.seed,
      memory,
    });
    const outDir = splitDir(dir, split);
    await Deno.mkdir(outDir, { recursive: true });
    await writeFileAtomic(`${outDir}/diagnostics.json`, JSON.stringify({ diagnostics }, null, 2));
    await writeFileAtomic(`${outDir}/diagnostics.md`, `# Diagnostics\n\n${copyDiagnosticMarkdown(diagnostics)}\n`);
    return { diagnostics, outDir };
  } finally {
    for (const m of models) m.dispose();
  }
}

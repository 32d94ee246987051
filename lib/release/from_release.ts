/**
 * A new run that starts from the released SFT policy: its `sft/` checkpoint
 * is the release's policy, its `metrics.jsonl` the release's warm-up and SFT
 * rows, so `runPipeline` resumes it at RL as it resumes any run whose SFT
 * has finished.
 *
 * @module
 */
import type { ExperimentConfig } from "../config/experiment.ts";
import { saveCheckpoint } from "../model/checkpoint.ts";
import { parseMetricsLog } from "../train/metrics_log.ts";
import { parseJsonText } from "../json_file.ts";
import { sftConfigDifference } from "../pipeline/branch.ts";
import { DataError, UsageError } from "../errors.ts";
import { loadRelease, RELEASE_METRICS, type ReleaseManifest } from "./release.ts";

/**
 * Lays out `outDir` as a run whose SFT stage is the release in `releaseDir`,
 * after every check: the release's hashes ({@linkcode loadRelease}), the
 * config agreeing with the release's on every field the SFT weights depend on
 * (`sftConfigDifference`), and the release's vocabulary being the run's data's
 * token for token. The run is put together beside `outDir` and moved into
 * place by one rename; a refusal leaves everything as it was.
 *
 * Source: this package (the main job's start; `branchRun` does the same from a run).
 *
 * @param releaseDir The release folder (`RELEASE_DIR`).
 * @param outDir The new run's directory (replaced when it holds a run; refused when it holds anything else).
 * @param config The new run's config.
 * @param tokenizerText The run's data's `tokenizer.json` (the ids the release's weights must share).
 * @returns The release's manifest.
 *
 * @example A tiny release laid out as a run at RL; a config that changes the SFT's seed refused (tests/release/from_release_test.ts releases a real quick SFT and trains RL from it)
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, tokenizerToJson } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { readCheckpointRecord } from "../model/checkpoint.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { writeRelease } from "./release.ts";
 * import { startFromRelease } from "./from_release.ts";
 *
 * const tok = buildTokenizer(["a b c"]);
 * const m = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const release = await Deno.makeTempDir();
 * const config = resolveConfig("quick");
 * const provenance = { command: "deno task train --stage sft", commit: "abc1234", seed: 0, sftSteps: 2, config, validation: [] };
 * await writeRelease(release, m, tok, provenance, [{ stage: "sft", step: 0, "sft/loss": 3.5 }, { stage: "sft", step: 1, "sft/loss": 2.5 }]);
 * m.dispose();
 * const run = `${await Deno.makeTempDir()}/run`;
 * const manifest = await startFromRelease(release, run, config, tokenizerToJson(tok));
 * assert.equal(manifest.sftSteps, 2);
 * // the run's SFT stage is the release's: its checkpoint done at step 2, its two SFT rows
 * const record = await readCheckpointRecord(`${run}/sft`);
 * assert.equal(record?.state.step, 2);
 * assert.equal(record?.state.done, true);
 * assert.equal((await Deno.readTextFile(`${run}/metrics.jsonl`)).trim().split("\n").length, 2);
 * await assert.rejects(
 *   startFromRelease(release, run, resolveConfig("quick", { seed: 5 }), tokenizerToJson(tok)),
 *   /seed is 0 there and 5 here/,
 * );
 * ```
 */
export async function startFromRelease(
  releaseDir: string,
  outDir: string,
  config: ExperimentConfig,
  tokenizerText: string,
): Promise<ReleaseManifest> {
  const { model, tokenizer, manifest } = await loadRelease(releaseDir);
  try {
    const d = sftConfigDifference(manifest.config, config);
    if (d !== undefined) {
      throw new UsageError(
        `Cannot start from the released SFT policy in ${releaseDir}: ${d[0]} is ${JSON.stringify(d[1])} there and ${
          JSON.stringify(d[2])
        } here: the SFT weights depend on it (train from scratch with --from-scratch)`,
      );
    }
    const words = (parseJsonText(tokenizerText, `${config.dataDir}/tokenizer.json`) as {
      model?: { vocab?: Record<string, number> };
    })?.model?.vocab;
    const clash = tokenizer.tokens.findIndex((t, i) => words?.[t] !== i);
    if (clash >= 0 || Object.keys(words ?? {}).length !== tokenizer.size) {
      throw new DataError(
        `Cannot start from the released SFT policy in ${releaseDir}: its tokenizer.json differs from the data's in ${config.dataDir} ` +
          `(${clash >= 0 ? `token ${clash} is ${JSON.stringify(tokenizer.tokens[clash])} there` : "another size"})`,
      );
    }
    const metricsPath = `${releaseDir}/${RELEASE_METRICS}`;
    const { rows } = parseMetricsLog(await Deno.readTextFile(metricsPath), metricsPath);
    const entries = await Array.fromAsync(Deno.readDir(outDir)).catch(() => []);
    if (entries.length > 0 && !entries.some((e) => e.name === "metrics.jsonl")) {
      throw new DataError(`Cannot start a run in ${outDir}: it is not empty and holds no run`);
    }
    const out = outDir.replace(/\/+$/, "");
    const slash = out.lastIndexOf("/");
    const staging = `${slash < 0 ? "." : out.slice(0, slash) || "/"}/.${out.slice(slash + 1)}.release-${Deno.pid}`;
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    await Deno.mkdir(staging, { recursive: true });
    await saveCheckpoint(`${staging}/sft`, {
      models: { policy: model },
      state: { step: manifest.sftSteps, done: true, release: manifest.files["model.safetensors"]?.sha256 ?? "" },
    });
    await Deno.writeTextFile(`${staging}/tokenizer.json`, tokenizerText);
    await Deno.writeTextFile(`${staging}/metrics.jsonl`, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
    await Deno.writeTextFile(`${staging}/config.json`, JSON.stringify(config, null, 2));
    await Deno.remove(outDir, { recursive: true }).catch(() => {});
    await Deno.rename(staging, outDir);
    return manifest;
  } finally {
    model.dispose();
  }
}

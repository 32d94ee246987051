/**
 * The released SFT policy: a folder of the repository in the Hugging Face
 * layout (what `deno task export-verl` writes for a policy) plus
 * `manifest.json`, which records how to reproduce it (command, commit, seed,
 * the run's config), what it scored on the validation sets, and the size and
 * SHA-256 of every other file. The main job starts from it after checking
 * every hash; a damaged or altered file is refused, and nothing is trained.
 *
 * @module
 */
import type { ExperimentConfig } from "../config/experiment.ts";
import { readHfModel, writeHfModel } from "../export/hf_model.ts";
import { sha256 } from "../model/checkpoint.ts";
import type { Model } from "../model/params.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { DataError } from "../errors.ts";
import { readJsonFile } from "../json_file.ts";
import type { MetricsRow } from "../train/metrics.ts";

/** Where the repository keeps the released SFT policy. */
export const RELEASE_DIR = "release/sft";

/** The release's copy of its SFT run's warm-up and SFT rows of `metrics.jsonl`. */
export const RELEASE_METRICS = "sft_metrics.jsonl";

/** The manifest's format tag. */
export const RELEASE_FORMAT = "mempo-lab/release@1";

/** One validation set's numbers of the released policy (memory context, greedy). */
export interface ReleaseValidationRow {
  /** Objectives per question. */
  objectives: number;
  /** Mean per-objective exact match. */
  em: number;
  /** Share of the memory decisions whose needed fact the final memory kept (`keptFacts`), where the set has any. */
  kept?: number;
}

/** `manifest.json` of a release. */
export interface ReleaseManifest {
  /** Format tag ({@linkcode RELEASE_FORMAT}). */
  format: typeof RELEASE_FORMAT;
  /** The command that trains it from scratch. */
  command: string;
  /** The commit of the code that trained it. */
  commit: string;
  /** The SFT stage's seed (`sftSeed`: `sft.seed`, else the world's `seed`). */
  seed: number;
  /** SFT steps taken. */
  sftSteps: number;
  /** The run's whole config: the main job must agree on every field the SFT weights depend on. */
  config: ExperimentConfig;
  /** The SFT policy on the validation sets (memory context). */
  validation: ReleaseValidationRow[];
  /** How it was chosen among candidate runs, when it was: the rule and every candidate's score. */
  choice?: { rule: string; candidates: { run: string; seed: number; score: number }[] };
  /** Every other file of the folder: bytes and SHA-256. */
  files: Record<string, { bytes: number; sha256: string }>;
}

/**
 * The command that trains a run's SFT stage from scratch: its preset (when not
 * the default), its world seed and, when set apart, its SFT seed.
 *
 * Source: this package (`deno task train --stage sft`).
 *
 * @param config The SFT run's config.
 * @returns The command, as the manifest and README give it.
 *
 * @example The default preset's world with the recipe at SFT seed 2; the quick preset at seed 1
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { releaseCommand } from "./release.ts";
 *
 * assert.equal(releaseCommand(resolveConfig("default", { sft: { seed: 2 } })), "deno task train --stage sft --seed 0 --sft-seed 2");
 * assert.equal(releaseCommand(resolveConfig("quick", { seed: 1 })), "deno task train --stage sft --preset quick --seed 1");
 * ```
 */
export function releaseCommand(config: ExperimentConfig): string {
  const preset = config.preset === "default" ? "" : ` --preset ${config.preset}`;
  const sft = config.sft.seed === undefined ? "" : ` --sft-seed ${config.sft.seed}`;
  return `deno task train --stage sft${preset} --seed ${config.seed}${sft}`;
}

/** What {@linkcode writeRelease} is given besides the policy. */
export type ReleaseProvenance = Omit<ReleaseManifest, "format" | "files">;

/**
 * Writes a release: the policy in the Hugging Face layout, a README that
 * says what it is, and `manifest.json` (written last) with every file's hash.
 * Files of an earlier release that this one does not write are removed.
 *
 * Source: Hugging Face `save_pretrained` layout; a manifest of hashes as in the safetensors / model-card convention.
 *
 * @param dir The folder.
 * @param model The SFT policy.
 * @param tokenizer Its tokenizer.
 * @param provenance Command, commit, seed, config, validation numbers, choice.
 * @param sftRows The SFT run's `metrics.jsonl` rows of its warm-up and SFT stages. @default none
 * @returns The manifest written.
 *
 * @example See {@linkcode loadRelease}.
 */
export async function writeRelease(
  dir: string,
  model: Model,
  tokenizer: Tokenizer,
  provenance: ReleaseProvenance,
  sftRows: readonly MetricsRow[] = [],
): Promise<ReleaseManifest> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.remove(`${dir}/manifest.json`).catch(() => {}); // a kill from here on leaves no valid release
  const names = await writeHfModel(dir, model, tokenizer);
  await writeFileAtomic(`${dir}/README.md`, releaseReadme(provenance));
  // the warm-up's and SFT's rows: the curves a run started from the release shows, and its resume checks
  await writeFileAtomic(`${dir}/${RELEASE_METRICS}`, sftRows.map((r) => JSON.stringify(r) + "\n").join(""));
  names.push("README.md", RELEASE_METRICS);
  for (const e of Deno.readDirSync(dir)) {
    if (e.isFile && !names.includes(e.name) && e.name !== "manifest.json") await Deno.remove(`${dir}/${e.name}`);
  }
  const files: ReleaseManifest["files"] = {};
  for (const name of names.sort()) {
    const bytes = await Deno.readFile(`${dir}/${name}`);
    files[name] = { bytes: bytes.length, sha256: await sha256(bytes) };
  }
  const manifest: ReleaseManifest = { format: RELEASE_FORMAT, ...provenance, files };
  await writeFileAtomic(`${dir}/manifest.json`, JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

/** The release's README: what it is and how to reproduce it, from the manifest. */
function releaseReadme(p: ReleaseProvenance): string {
  return [
    "# The released SFT policy",
    "",
    `The cold-start policy that \`deno task train\` starts its RL from: preset \`${p.config.preset}\`, SFT seed ${p.seed}, ` +
    `${p.sftSteps} SFT steps, trained at commit ${p.commit} by`,
    "",
    "```sh",
    p.command,
    "```",
    "",
    "Hugging Face layout (`config.json`, `model.safetensors`, tokenizer files), as `deno task export-verl` writes a",
    "policy; `manifest.json` holds the run's config, its validation numbers and the SHA-256 of every file, which",
    "`deno task train` checks before it trains anything.",
    "",
    "Validation sets (memory context, greedy): " +
    p.validation.map((r) =>
      `${r.objectives} obj EM ${r.em.toFixed(2)}${r.kept === undefined ? "" : ` kept ${r.kept.toFixed(2)}`}`
    )
      .join("; ") +
    ".",
    ...(p.choice
      ? [
        "",
        `Chosen by the rule: ${p.choice.rule}. Candidates: ` +
        p.choice.candidates.map((c) => `${c.run} (SFT seed ${c.seed}) ${c.score.toFixed(3)}`).join(", ") + ".",
      ]
      : []),
    "",
  ].join("\n");
}

/**
 * Checks a release: `manifest.json` readable and of this format, every file
 * it lists present with its size and SHA-256, no other file. Refuses with a
 * `DataError` that names the file and both hashes.
 *
 * Source: this package.
 *
 * @param dir The folder.
 * @returns The manifest.
 *
 * @example See {@linkcode loadRelease}.
 */
export async function verifyRelease(dir: string): Promise<ReleaseManifest> {
  const fail = (why: string): never => {
    throw new DataError(`Cannot use the released SFT policy in ${dir}: ${why}; nothing was trained from it`);
  };
  // one reader of the JSON files (lib/json_file.ts): a damaged manifest is refused with its path and the parser's message
  const read = await readJsonFile(`${dir}/manifest.json`, { optional: true }).catch((e: Error) => fail(e.message));
  const manifest = (read ??
    fail(
      "no manifest.json (restore the folder with git checkout, or train from scratch with --from-scratch)",
    )) as ReleaseManifest;
  if (manifest?.format !== RELEASE_FORMAT) {
    fail(`manifest.json's format is ${JSON.stringify(manifest?.format)}, expected ${JSON.stringify(RELEASE_FORMAT)}`);
  }
  if (typeof manifest.files !== "object" || manifest.files === null) fail("manifest.json lists no files");
  for (const [name, want] of Object.entries(manifest.files)) {
    const bytes = await Deno.readFile(`${dir}/${name}`).catch(() => fail(`${dir}/${name} is missing`));
    const got = await sha256(bytes);
    if (got !== want.sha256 || bytes.length !== want.bytes) {
      fail(
        `${dir}/${name} has sha256 ${got} (${bytes.length} bytes), the manifest says ${want.sha256} (${want.bytes} ` +
          `bytes): the file was altered or damaged`,
      );
    }
  }
  for (const e of Deno.readDirSync(dir)) {
    if (e.name !== "manifest.json" && !(e.name in manifest.files)) fail(`${dir}/${e.name} is not in manifest.json`);
  }
  return manifest;
}

/**
 * Loads a release after {@linkcode verifyRelease}: the policy, its tokenizer
 * and the manifest.
 *
 * Source: this package.
 *
 * @param dir The folder.
 * @returns The policy (owned by the caller), its tokenizer and the manifest.
 *
 * @example Written, checked, loaded; one changed byte is refused with both hashes
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { loadRelease, writeRelease } from "./release.ts";
 *
 * const tok = buildTokenizer(["a b c"]);
 * const m = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const dir = await Deno.makeTempDir();
 * const provenance = { command: "deno task train --stage sft", commit: "abc1234", seed: 0, sftSteps: 2, config: resolveConfig("quick"), validation: [{ objectives: 1, em: 0.5 }] };
 * const manifest = await writeRelease(dir, m, tok, provenance);
 * const back = await loadRelease(dir);
 * assert.equal(back.manifest.files["model.safetensors"]!.sha256, manifest.files["model.safetensors"]!.sha256);
 * back.model.dispose();
 * const bytes = await Deno.readFile(`${dir}/model.safetensors`);
 * bytes[bytes.length - 1]! ^= 1;
 * await Deno.writeFile(`${dir}/model.safetensors`, bytes);
 * await assert.rejects(loadRelease(dir), /model\.safetensors has sha256 [0-9a-f]{64} .*the manifest says [0-9a-f]{64}/);
 * m.dispose();
 * ```
 */
export async function loadRelease(
  dir: string,
): Promise<{ model: Model; tokenizer: Tokenizer; manifest: ReleaseManifest }> {
  const manifest = await verifyRelease(dir);
  const { model, tokenizer } = await readHfModel(dir);
  return { model, tokenizer, manifest };
}

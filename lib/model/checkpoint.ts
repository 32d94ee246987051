/**
 * Checkpoints: `<name>.safetensors` per model (PyTorch layout), optional
 * `<name>.optimizer.safetensors`, and `config.json`, the record of the
 * checkpoint (architecture, state, each file's size and SHA-256).
 *
 * A checkpoint is one unit: {@linkcode saveCheckpoint} writes every file of
 * it into a fresh hidden directory beside the target (`.sft.next` for
 * `sft/`) and makes it current by renames (`sft` → `.sft.prev`, `.sft.next` →
 * `sft`), removing the previous one only after the new one is current. A
 * kill at any moment leaves one complete checkpoint that
 * {@linkcode currentCheckpoint} finds: `sft/`, or, killed between the two
 * renames, `.sft.next` (complete: it is renamed only once written). A reader
 * never mixes the files of two steps: every file is checked against the
 * record it was read with.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { type ModelConfig, validateModelConfig } from "./config.ts";
import { createModel, type Model, type ModelKind, weightShapes } from "./params.ts";
import { decodeSafetensors, encodeSafetensors, type NamedArray, type SafetensorsFile } from "./safetensors.ts";
import type { AdamW } from "../optim/adamw.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { DataError } from "../errors.ts";
import { faultPoint } from "../fault_point.ts";

/** What {@linkcode saveCheckpoint} writes. */
export interface CheckpointContents {
  /** Models by file name (`policy`, `critic`, …). */
  models: Record<string, Model>;
  /** Optimizers by the name of the model they update. */
  optimizers?: Record<string, AdamW>;
  /** Free-form JSON state (step, metrics, RNG seeds, tokenizer path, …). */
  state?: Record<string, unknown>;
}

/** A loaded checkpoint. */
export interface LoadedCheckpoint {
  /** Models by name; owned by the caller (dispose them). */
  models: Record<string, Model>;
  /** Optimizers created by `options.optimizers`, with their saved state; owned by the caller. */
  optimizers: Record<string, AdamW>;
  /** The saved free-form state. */
  state: Record<string, unknown>;
  /** The `config.json` record. */
  record: CheckpointRecord;
}

/** The `config.json` of a checkpoint. */
export interface CheckpointRecord {
  /** Format tag. */
  format: "mempo-lab/checkpoint@1";
  /** Per model: architecture, kind and file integrity. */
  models: Record<string, { architecture: ModelConfig; kind: ModelKind; file: string; bytes: number; sha256: string }>;
  /** Per optimizer: file integrity and step. */
  optimizers: Record<string, { file: string; bytes: number; sha256: string; step: number }>;
  /** Free-form state. */
  state: Record<string, unknown>;
}

const isLinear = (name: string) => name.endsWith("_proj.weight") || name === "value_head.weight";

/**
 * The SHA-256 of bytes, as lower-case hex: what checkpoints and the released SFT policy record of each file.
 *
 * Source: FIPS 180-4 through Web Crypto's `crypto.subtle.digest`.
 *
 * @param bytes The bytes.
 * @returns 64 hex digits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256 } from "./checkpoint.ts";
 *
 * assert.equal(await sha256(new TextEncoder().encode("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
 * ```
 */
export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function isDirectory(path: string): Promise<boolean> {
  return await Deno.stat(path).then((s) => s.isDirectory, () => false);
}

async function removeIfPresent(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
}

/** The hidden staging and previous directories beside a checkpoint directory. */
function siblings(dir: string): { next: string; prev: string } {
  const d = dir.replace(/\/+$/, "");
  const slash = d.lastIndexOf("/");
  const parent = slash < 0 ? "." : d.slice(0, slash) || "/";
  const base = d.slice(slash + 1);
  return { next: `${parent}/.${base}.next`, prev: `${parent}/.${base}.prev` };
}

/**
 * Where the current complete checkpoint of `dir` is: `dir` itself; or, when
 * a save was killed between its two renames (no `dir`, both hidden siblings
 * present), the staged `.<name>.next` beside it. Reads only.
 *
 * ```text
 * dir present                    → dir (any hidden sibling is stale)
 * dir absent, .next and .prev    → .next (complete: it is renamed only once written)
 * dir absent, .prev alone        → .prev
 * otherwise                      → undefined (no checkpoint; a lone .next is a save cut short)
 * ```
 *
 * Source: the rename-based commit of Git's refs and of PyTorch Lightning's `ModelCheckpoint` (write, then swap).
 *
 * @param dir The checkpoint directory (`runs/NAME/sft`).
 * @returns The directory to read, or undefined when there is no checkpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentCheckpoint } from "./checkpoint.ts";
 *
 * const run = await Deno.makeTempDir();
 * assert.equal(await currentCheckpoint(`${run}/sft`), undefined);
 * await Deno.mkdir(`${run}/.sft.next`);
 * assert.equal(await currentCheckpoint(`${run}/sft`), undefined); // a save cut short
 * await Deno.mkdir(`${run}/.sft.prev`);
 * assert.equal(await currentCheckpoint(`${run}/sft`), `${run}/.sft.next`); // killed between the renames
 * ```
 */
export async function currentCheckpoint(dir: string): Promise<string | undefined> {
  if (await isDirectory(dir)) return dir;
  const { next, prev } = siblings(dir);
  if (await isDirectory(prev)) return (await isDirectory(next)) ? next : prev;
  return undefined;
}

/**
 * Finishes a save that a kill interrupted: a checkpoint left under its
 * staging name between the two renames is made current under its own name,
 * and stale hidden siblings are removed. For the run's writer only (a save
 * in progress would lose its staging directory); {@linkcode saveCheckpoint}
 * runs it first.
 *
 * Source: see {@linkcode currentCheckpoint}.
 *
 * @param dir The checkpoint directory.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settleCheckpoint } from "./checkpoint.ts";
 *
 * const run = await Deno.makeTempDir();
 * await Deno.mkdir(`${run}/.sft.prev`);
 * await Deno.mkdir(`${run}/.sft.next`);
 * await Deno.writeTextFile(`${run}/.sft.next/config.json`, "{}");
 * await settleCheckpoint(`${run}/sft`);
 * assert.deepEqual([...Deno.readDirSync(run)].map((e) => e.name), ["sft"]);
 * assert.equal(await Deno.readTextFile(`${run}/sft/config.json`), "{}");
 * ```
 */
export async function settleCheckpoint(dir: string): Promise<void> {
  const { next, prev } = siblings(dir);
  if (!(await isDirectory(dir)) && (await isDirectory(prev))) {
    await Deno.rename((await isDirectory(next)) ? next : prev, dir);
  }
  await removeIfPresent(next);
  await removeIfPresent(prev);
}

async function readRecordText(where: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(`${where}/config.json`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new DataError(`Checkpoint ${where}: cannot read config.json (${(e as Error).message})`);
  }
}

function parseRecord(where: string, text: string): CheckpointRecord {
  let record: CheckpointRecord;
  try {
    record = JSON.parse(text);
  } catch (e) {
    throw new DataError(`Cannot load checkpoint ${where}: config.json is not valid JSON (${(e as Error).message})`);
  }
  if (typeof record !== "object" || record === null || record.format !== "mempo-lab/checkpoint@1") {
    throw new DataError(
      `Cannot load checkpoint ${where}: config.json's format must be "mempo-lab/checkpoint@1", current value is ${
        JSON.stringify((record as CheckpointRecord | null)?.format)
      }`,
    );
  }
  for (const key of ["models", "optimizers", "state"] as const) {
    if (typeof record[key] !== "object" || record[key] === null || Array.isArray(record[key])) {
      throw new DataError(
        `Cannot load checkpoint ${where}: config.json's ${key} must be an object, current value is ${
          JSON.stringify(record[key])
        }`,
      );
    }
  }
  return record;
}

/**
 * The record (`config.json`) of the current checkpoint of `dir`, or undefined
 * when there is none. Reads only.
 *
 * Source: Hugging Face `config.json` convention; {@linkcode currentCheckpoint}.
 *
 * @param dir The checkpoint directory.
 * @returns The record, or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCheckpointRecord } from "./checkpoint.ts";
 *
 * assert.equal(await readCheckpointRecord("/nonexistent/sft"), undefined);
 * ```
 */
export async function readCheckpointRecord(dir: string): Promise<CheckpointRecord | undefined> {
  const where = await currentCheckpoint(dir);
  if (where === undefined) return undefined;
  const text = await readRecordText(where);
  return text === undefined ? undefined : parseRecord(where, text);
}

/**
 * A model's weights in PyTorch's layout, as its checkpoint stores them:
 * linear weights (`*_proj.weight`, `value_head.weight`) transposed to
 * `[out, in]` (the package holds `[in, out]`, `x · W`), every other weight as
 * it is; names and order as `model.weights`.
 *
 * ```text
 * W_torch = Wᵀ (linear: y = x W = x W_torchᵀ, torch.nn.Linear);   other weights unchanged
 * ```
 *
 * Source: PyTorch `torch.nn.Linear` (`weight` is `[out_features, in_features]`); Hugging Face state-dict names.
 *
 * @param model The model.
 * @returns Named float32 arrays (the caller owns them; no tensor is left behind).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { torchLayoutArrays } from "./checkpoint.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const arrays = await torchLayoutArrays(m);
 * assert.deepEqual(m.weights.get("model.layers.0.mlp.gate_proj.weight")!.shape, [32, 64]); // [in, out]
 * assert.deepEqual(arrays.find((a) => a.name === "model.layers.0.mlp.gate_proj.weight")!.shape, [64, 32]);
 * assert.deepEqual(arrays.find((a) => a.name === "model.embed_tokens.weight")!.shape, [20, 32]);
 * m.dispose();
 * ```
 */
export async function torchLayoutArrays(model: Model): Promise<NamedArray[]> {
  const out: NamedArray[] = [];
  for (const [name, v] of model.weights) {
    const t = isLinear(name) ? tf.transpose(v) : v;
    out.push({ name, shape: t.shape, data: (await t.data()) as Float32Array });
    if (t !== v) t.dispose();
  }
  return out;
}

/**
 * Saves models (and optimizer state) as one checkpoint in `dir`: every file
 * is written into the fresh hidden directory `.<name>.next` beside `dir`,
 * then renames make it current (`dir` → `.<name>.prev`, `.<name>.next` →
 * `dir`) and the previous checkpoint is removed. A kill at any point leaves
 * the previous checkpoint or the new one whole ({@linkcode currentCheckpoint}).
 * A swap left half-done by a kill is finished first. Refuses a non-empty
 * `dir` that holds no checkpoint (it would be replaced).
 *
 * Source: safetensors format; Hugging Face `config.json` convention.
 * Reference: MiniMind `lm_checkpoint` (weights + optimizer + step for resume).
 *
 * @param dir Target directory (its parent is created if missing).
 * @param contents Models, optimizers, state.
 * @returns The written record.
 *
 * @example Save and load back
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { loadCheckpoint, saveCheckpoint } from "./checkpoint.ts";
 *
 * const dir = `${await Deno.makeTempDir()}/sft`;
 * const m = createModel(modelPreset("tiny", 20), { seed: 4 });
 * await saveCheckpoint(dir, { models: { policy: m }, state: { step: 7 } });
 * await saveCheckpoint(dir, { models: { policy: m }, state: { step: 8 } }); // replaces step 7 as a whole
 * const loaded = await loadCheckpoint(dir);
 * assert.equal(loaded.state.step, 8);
 * assert.deepEqual(loaded.models.policy!.weights.get("model.norm.weight")!.arraySync(), m.weights.get("model.norm.weight")!.arraySync());
 * loaded.models.policy!.dispose();
 * m.dispose();
 * ```
 */
export async function saveCheckpoint(dir: string, contents: CheckpointContents): Promise<CheckpointRecord> {
  const { next, prev } = siblings(dir);
  await settleCheckpoint(dir);
  if (await isDirectory(dir)) {
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    if (names.length > 0 && !names.includes("config.json")) {
      throw new DataError(`Cannot save a checkpoint in ${dir}: it holds other files (${names.slice(0, 3).join(", ")})`);
    }
  }
  await Deno.mkdir(next, { recursive: true });
  const record: CheckpointRecord = {
    format: "mempo-lab/checkpoint@1",
    models: {},
    optimizers: {},
    state: contents.state ?? {},
  };
  for (const [name, model] of Object.entries(contents.models)) {
    // the weights carry their own architecture, so a config.json edited by hand cannot pass for them
    const bytes = encodeSafetensors(await torchLayoutArrays(model), {
      format: "pt",
      kind: model.kind,
      architecture: JSON.stringify(model.config),
    });
    const file = `${name}.safetensors`;
    await writeFileAtomic(`${next}/${file}`, bytes);
    record.models[name] = {
      architecture: model.config,
      kind: model.kind,
      file,
      bytes: bytes.length,
      sha256: await sha256(bytes),
    };
  }
  for (const [name, opt] of Object.entries(contents.optimizers ?? {})) {
    const model = contents.models[name];
    if (model === undefined) {
      throw new TypeError(`Cannot save optimizer ${name}: no model of that name is saved with it`);
    }
    const s = opt.state();
    const arrays: NamedArray[] = [];
    for (const [canonical, v] of model.weights) {
      for (const [moment, map] of [["m", s.m], ["v", s.v]] as const) {
        const t = map.get(v.name);
        if (t) arrays.push({ name: `${moment}.${canonical}`, shape: t.shape, data: (await t.data()) as Float32Array });
      }
    }
    const bytes = encodeSafetensors(arrays, { step: String(s.step) });
    const file = `${name}.optimizer.safetensors`;
    await writeFileAtomic(`${next}/${file}`, bytes);
    record.optimizers[name] = { file, bytes: bytes.length, sha256: await sha256(bytes), step: s.step };
  }
  await writeFileAtomic(`${next}/config.json`, JSON.stringify(record, null, 2));
  faultPoint("checkpoint-staged");
  if (await isDirectory(dir)) {
    await removeIfPresent(prev);
    await Deno.rename(dir, prev);
    faultPoint("checkpoint-swap");
  }
  await Deno.rename(next, dir);
  faultPoint("checkpoint-swapped");
  await removeIfPresent(prev);
  return record;
}

async function readVerified(where: string, file: string, bytes: number, hash: string): Promise<SafetensorsFile> {
  let data: Uint8Array;
  try {
    data = await Deno.readFile(`${where}/${file}`);
  } catch (e) {
    throw new DataError(`Checkpoint ${where}: cannot read ${file} (${(e as Error).message})`);
  }
  if (data.length !== bytes || (await sha256(data)) !== hash) {
    throw new DataError(
      `Checkpoint ${where}: ${file} is corrupted (expected ${bytes} bytes with SHA-256 ${
        hash.slice(0, 12)
      }…, found ${data.length} bytes${data.length === bytes ? " with another hash" : ""})`,
    );
  }
  try {
    return decodeSafetensors(data, `${where}/${file}`);
  } catch (e) {
    throw new DataError(`Checkpoint ${where}: ${(e as Error).message}`);
  }
}

const ARCHITECTURE_FIELDS = [
  "vocabSize",
  "dModel",
  "nLayers",
  "nHeads",
  "ffnHidden",
  "maxPositions",
  "ropeTheta",
  "normEps",
] as const;

/**
 * Checks a model's record against its weights: the architecture saved in the
 * weights' own metadata (every field), the fields their shapes determine
 * (V, D, L, SwiGLU width), then every tensor's name and shape, nothing missing
 * and nothing extra.
 */
function checkWeights(
  where: string,
  name: string,
  info: CheckpointRecord["models"][string],
  weights: SafetensorsFile,
): void {
  const said = info.architecture;
  const file = info.file;
  const refuse = (field: string, saved: unknown, found: unknown, how: string): never => {
    throw new DataError(
      `Checkpoint ${where}: config.json says models.${name}.architecture.${field} = ${saved}, but ${file} ${how} ${found}`,
    );
  };
  if (weights.metadata.architecture !== undefined) {
    let own: Record<string, unknown>;
    try {
      own = JSON.parse(weights.metadata.architecture);
    } catch {
      throw new DataError(`Checkpoint ${where}: ${file}'s metadata architecture is not valid JSON`);
    }
    for (const k of ARCHITECTURE_FIELDS) if (own[k] !== said[k]) refuse(k, said[k], own[k], "was saved with");
  }
  if (weights.metadata.kind !== undefined && weights.metadata.kind !== info.kind) {
    throw new DataError(
      `Checkpoint ${where}: config.json says models.${name}.kind = ${info.kind}, but ${file} was saved as ${weights.metadata.kind}`,
    );
  }
  const byName = new Map(weights.tensors.map((t) => [t.name, t]));
  const embed = byName.get("model.embed_tokens.weight")?.shape;
  if (embed?.length === 2) {
    if (embed[0] !== said.vocabSize) refuse("vocabSize", said.vocabSize, embed[0], "has (embed_tokens rows)");
    if (embed[1] !== said.dModel) refuse("dModel", said.dModel, embed[1], "has (embed_tokens columns)");
  }
  const layers = new Set(weights.tensors.map((t) => t.name.match(/^model\.layers\.(\d+)\./)?.[1]).filter((x) => x));
  if (layers.size !== said.nLayers) refuse("nLayers", said.nLayers, layers.size, "holds layers:");
  const gate = byName.get("model.layers.0.mlp.gate_proj.weight")?.shape;
  if (gate?.length === 2 && gate[0] !== said.ffnHidden) {
    refuse("ffnHidden", said.ffnHidden, gate[0], "has (gate_proj rows)");
  }
  const expected = weightShapes(said, info.kind);
  for (const [w, shape] of expected) {
    const t = byName.get(w);
    const torchShape = isLinear(w) ? [...shape].reverse() : shape;
    if (t === undefined || t.shape.join() !== torchShape.join()) {
      throw new DataError(
        `Checkpoint ${where}: ${file} has no tensor ${w} of shape [${torchShape}]${
          t === undefined ? "" : ` (found [${t.shape}])`
        }, as config.json's architecture needs`,
      );
    }
  }
  const extra = weights.tensors.map((t) => t.name).filter((n) => !expected.some(([w]) => w === n));
  if (extra.length > 0) {
    throw new DataError(
      `Checkpoint ${where}: ${file} has tensors that config.json's architecture (${info.kind}) does not: ${
        extra.slice(0, 3).join(", ")
      }`,
    );
  }
}

/**
 * A model made from weights in the PyTorch layout (linear weights `[out, in]`,
 * as {@linkcode torchLayoutArrays} writes them), each weight's shape checked
 * first: the one way a checkpoint or a Hugging Face folder becomes a model.
 *
 * Source: MiniMind / Hugging Face `state_dict` layout.
 *
 * @param architecture The model's configuration.
 * @param kind Policy or critic.
 * @param weights The decoded safetensors file (named by `weightShapes`).
 * @param options `name` of the instance, `trainable` variables, `where` the weights came from (for errors). @default trainable true
 * @returns The model (owned by the caller).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { modelFromTorchLayout, torchLayoutArrays } from "./checkpoint.ts";
 *
 * const m = createModel(modelPreset("tiny", 20), { seed: 3 });
 * const copy = modelFromTorchLayout(m.config, "policy", { tensors: await torchLayoutArrays(m), metadata: {} });
 * const w = "model.layers.0.mlp.gate_proj.weight";
 * assert.deepEqual(copy.weights.get(w)!.arraySync(), m.weights.get(w)!.arraySync());
 * const tensors = await torchLayoutArrays(m);
 * assert.throws(() => modelFromTorchLayout({ ...m.config, ffnHidden: 8 }, "policy", { tensors, metadata: {} }), /ffnHidden = 8/);
 * copy.dispose();
 * m.dispose();
 * ```
 */
export function modelFromTorchLayout(
  architecture: ModelConfig,
  kind: ModelKind,
  weights: SafetensorsFile,
  options: { name?: string; trainable?: boolean; where?: string; file?: string } = {},
): Model {
  const info = { architecture, kind, file: options.file ?? "weights", bytes: 0, sha256: "" };
  checkWeights(options.where ?? "weights", options.name ?? kind, info, weights);
  const byName = new Map(weights.tensors.map((t) => [t.name, t]));
  const model = createModel(architecture, { kind, name: options.name, trainable: options.trainable ?? true });
  for (const [w] of weightShapes(architecture, kind)) {
    const t = byName.get(w)!;
    tf.tidy(() => {
      const x = tf.tensor(t.data, t.shape);
      model.weights.get(w)!.assign(isLinear(w) ? tf.transpose(x) : x);
    });
  }
  return model;
}

/** Options of {@linkcode loadCheckpoint}. */
export interface LoadCheckpointOptions {
  /** Refuse a checkpoint whose architecture differs from this one (field by field). */
  expect?: Partial<ModelConfig>;
  /** Create optimizers over the loaded models (by model name) and restore their state. */
  optimizers?: Record<string, (model: Model) => AdamW>;
  /** Make the loaded models trainable. @default true */
  trainable?: boolean;
}

/** Options of {@linkcode verifyCheckpoint}. */
export interface VerifyCheckpointOptions {
  /** Refuse a checkpoint whose architecture differs from this one (field by field). */
  expect?: Partial<ModelConfig>;
  /** Models whose optimizer state must be present and whole (`["policy", "critic"]`). */
  optimizers?: readonly string[];
}

/** A checkpoint's files read and checked, before any tensor exists. */
interface ReadCheckpoint {
  where: string;
  record: CheckpointRecord;
  models: Map<string, SafetensorsFile>;
  optimizers: Map<string, SafetensorsFile>;
}

async function readCheckpoint(dir: string, options: VerifyCheckpointOptions): Promise<ReadCheckpoint> {
  // a writer may make another checkpoint current while this reads: read again when the record changed under it
  for (let attempt = 0;; attempt++) {
    const where = await currentCheckpoint(dir);
    const text = where === undefined ? undefined : await readRecordText(where);
    if (where === undefined || text === undefined) {
      throw new DataError(`Cannot load checkpoint: no config.json in ${dir}`);
    }
    try {
      const record = parseRecord(where, text);
      const models = new Map<string, SafetensorsFile>();
      for (const [name, info] of Object.entries(record.models)) {
        let config: ModelConfig;
        try {
          config = validateModelConfig(info.architecture);
        } catch (e) {
          throw new DataError(
            `Checkpoint ${where}: config.json's models.${name}.architecture: ${(e as Error).message}`,
          );
        }
        for (const [k, want] of Object.entries(options.expect ?? {})) {
          if (config[k as keyof ModelConfig] !== want) {
            throw new DataError(
              `Cannot load checkpoint ${where}: model ${name} has ${k} = ${
                config[k as keyof ModelConfig]
              }, expected ${want} (another architecture)`,
            );
          }
        }
        const weights = await readVerified(where, info.file, info.bytes, info.sha256);
        checkWeights(where, name, info, weights);
        models.set(name, weights);
      }
      const optimizers = new Map<string, SafetensorsFile>();
      for (const name of options.optimizers ?? []) {
        const info = record.optimizers[name];
        if (info === undefined || record.models[name] === undefined) {
          throw new DataError(`Cannot load checkpoint ${where}: no optimizer state for ${name}`);
        }
        optimizers.set(name, await readVerified(where, info.file, info.bytes, info.sha256));
      }
      return { where, record, models, optimizers };
    } catch (e) {
      const now = await currentCheckpoint(dir);
      const changed = now !== where || (now !== undefined && (await readRecordText(now).catch(() => "")) !== text);
      if (!changed || attempt >= 3) throw e;
    }
  }
}

/**
 * Reads and checks a whole checkpoint without creating a tensor: its record,
 * every file's size and SHA-256, each model's architecture against the
 * expected one and against its weights' metadata and shapes, and the
 * optimizer states asked for. What a resume runs before it writes anything.
 *
 * Source: safetensors format; `config.json` as the commit record.
 *
 * @param dir The checkpoint directory.
 * @param options Architecture to expect, the models whose optimizer state must be present.
 * @returns The record.
 *
 * @example A missing checkpoint gives a clear error
 * ```ts
 * import assert from "node:assert/strict";
 * import { verifyCheckpoint } from "./checkpoint.ts";
 *
 * await assert.rejects(verifyCheckpoint("/nonexistent/ckpt"), /no config.json in \/nonexistent\/ckpt/);
 * ```
 */
export async function verifyCheckpoint(
  dir: string,
  options: VerifyCheckpointOptions = {},
): Promise<CheckpointRecord> {
  return (await readCheckpoint(dir, options)).record;
}

/**
 * Loads the current checkpoint of `dir` ({@linkcode currentCheckpoint}),
 * verifying sizes and hashes, the architecture against the weights, and
 * (optionally) against an expected one.
 *
 * Source: safetensors format; `config.json` as the commit record.
 *
 * @param dir The checkpoint directory.
 * @param options Architecture to expect, optimizers to restore.
 * @returns Models (owned by the caller), state and record.
 *
 * @example A missing checkpoint gives a clear error
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCheckpoint } from "./checkpoint.ts";
 *
 * await assert.rejects(loadCheckpoint("/nonexistent/ckpt"), /no config.json in \/nonexistent\/ckpt/);
 * ```
 */
export async function loadCheckpoint(dir: string, options: LoadCheckpointOptions = {}): Promise<LoadedCheckpoint> {
  const read = await readCheckpoint(dir, { expect: options.expect, optimizers: Object.keys(options.optimizers ?? {}) });
  const { record } = read;
  const models: Record<string, Model> = {};
  const optimizers: Record<string, AdamW> = {};
  try {
    for (const [name, info] of Object.entries(record.models)) {
      models[name] = modelFromTorchLayout(info.architecture, info.kind, read.models.get(name)!, {
        name,
        trainable: options.trainable ?? true,
      });
    }
    for (const [name, factory] of Object.entries(options.optimizers ?? {})) {
      const info = record.optimizers[name]!;
      const model = models[name]!;
      const optimizer = factory(model);
      optimizers[name] = optimizer;
      const file = read.optimizers.get(name)!;
      const m = new Map<string, tf.Tensor>();
      const v = new Map<string, tf.Tensor>();
      for (const t of file.tensors) {
        const [moment, ...rest] = t.name.split(".");
        const variable = model.weights.get(rest.join("."));
        if (variable) (moment === "m" ? m : v).set(variable.name, tf.tensor(t.data, t.shape));
      }
      optimizer.load({ step: Number(file.metadata.step ?? info.step), m, v });
      tf.dispose([...m.values(), ...v.values()]);
    }
  } catch (e) {
    for (const model of Object.values(models)) model.dispose();
    for (const opt of Object.values(optimizers)) opt.dispose();
    throw e;
  }
  return { models, optimizers, state: record.state, record };
}

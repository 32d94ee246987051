/**
 * Checkpoints: `<name>.safetensors` per model (PyTorch layout), optional
 * `<name>.optimizer.safetensors`, and `config.json` written last as the
 * commit record (with each file's size and SHA-256), every file through a
 * temporary name and a rename, so an interrupted save never leaves a
 * checkpoint that loads.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { type ModelConfig, validateModelConfig } from "./config.ts";
import { createModel, type Model, type ModelKind, weightShapes } from "./params.ts";
import { decodeSafetensors, encodeSafetensors, type NamedArray } from "./safetensors.ts";
import type { AdamW } from "../optim/adamw.ts";

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

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function writeAtomic(path: string, data: Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${Deno.pid}`;
  await Deno.writeFile(tmp, data);
  await Deno.rename(tmp, path);
}

/** Weights in PyTorch layout: linear weights `[out, in]`. */
async function modelArrays(model: Model): Promise<NamedArray[]> {
  const out: NamedArray[] = [];
  for (const [name, v] of model.weights) {
    const t = isLinear(name) ? tf.transpose(v) : v;
    out.push({ name, shape: t.shape, data: (await t.data()) as Float32Array });
    if (t !== v) t.dispose();
  }
  return out;
}

/**
 * Saves models (and optimizer state) into `dir`, atomically per file, with
 * `config.json` last.
 *
 * Source: safetensors format; Hugging Face `config.json` convention.
 * Reference: MiniMind `lm_checkpoint` (weights + optimizer + step for resume).
 *
 * @param dir Target directory (created if missing).
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
 * const dir = await Deno.makeTempDir();
 * const m = createModel(modelPreset("tiny", 20), { seed: 4 });
 * await saveCheckpoint(dir, { models: { policy: m }, state: { step: 7 } });
 * const loaded = await loadCheckpoint(dir);
 * assert.equal(loaded.state.step, 7);
 * assert.deepEqual(loaded.models.policy!.weights.get("model.norm.weight")!.arraySync(), m.weights.get("model.norm.weight")!.arraySync());
 * loaded.models.policy!.dispose();
 * m.dispose();
 * ```
 */
export async function saveCheckpoint(dir: string, contents: CheckpointContents): Promise<CheckpointRecord> {
  await Deno.mkdir(dir, { recursive: true });
  const record: CheckpointRecord = {
    format: "mempo-lab/checkpoint@1",
    models: {},
    optimizers: {},
    state: contents.state ?? {},
  };
  for (const [name, model] of Object.entries(contents.models)) {
    const bytes = encodeSafetensors(await modelArrays(model), { format: "pt", kind: model.kind });
    const file = `${name}.safetensors`;
    await writeAtomic(`${dir}/${file}`, bytes);
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
    await writeAtomic(`${dir}/${file}`, bytes);
    record.optimizers[name] = { file, bytes: bytes.length, sha256: await sha256(bytes), step: s.step };
  }
  await writeAtomic(`${dir}/config.json`, new TextEncoder().encode(JSON.stringify(record, null, 2)));
  return record;
}

async function readVerified(dir: string, file: string, bytes: number, hash: string): Promise<Uint8Array> {
  let data: Uint8Array;
  try {
    data = await Deno.readFile(`${dir}/${file}`);
  } catch (e) {
    throw new Error(`Checkpoint ${dir}: cannot read ${file} (${(e as Error).message})`);
  }
  if (data.length !== bytes || (await sha256(data)) !== hash) {
    throw new Error(
      `Checkpoint ${dir}: ${file} is corrupted (expected ${bytes} bytes with SHA-256 ${
        hash.slice(0, 12)
      }…, found ${data.length} bytes${data.length === bytes ? " with another hash" : ""})`,
    );
  }
  return data;
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

/**
 * Loads a checkpoint written by {@linkcode saveCheckpoint}, verifying sizes
 * and hashes and (optionally) the architecture.
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
  let record: CheckpointRecord;
  try {
    record = JSON.parse(await Deno.readTextFile(`${dir}/config.json`));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new Error(`Cannot load checkpoint: no config.json in ${dir}`);
    throw new Error(`Cannot load checkpoint ${dir}: config.json is not valid JSON (${(e as Error).message})`);
  }
  if (record.format !== "mempo-lab/checkpoint@1") {
    throw new Error(
      `Cannot load checkpoint ${dir}: format must be "mempo-lab/checkpoint@1", current value is ${
        JSON.stringify(record.format)
      }`,
    );
  }
  const models: Record<string, Model> = {};
  const optimizers: Record<string, AdamW> = {};
  try {
    for (const [name, info] of Object.entries(record.models)) {
      const config = validateModelConfig(info.architecture);
      for (const [k, want] of Object.entries(options.expect ?? {})) {
        if (config[k as keyof ModelConfig] !== want) {
          throw new Error(
            `Cannot load checkpoint ${dir}: model ${name} has ${k} = ${
              config[k as keyof ModelConfig]
            }, expected ${want} (another architecture)`,
          );
        }
      }
      const file = decodeSafetensors(
        await readVerified(dir, info.file, info.bytes, info.sha256),
        `${dir}/${info.file}`,
      );
      const byName = new Map(file.tensors.map((t) => [t.name, t]));
      const model = createModel(config, { kind: info.kind, name, trainable: options.trainable ?? true });
      models[name] = model;
      for (const [w, shape] of weightShapes(config, info.kind)) {
        const t = byName.get(w);
        const torchShape = isLinear(w) ? [...shape].reverse() : shape;
        if (t === undefined || t.shape.join() !== torchShape.join()) {
          throw new Error(`Cannot load checkpoint ${dir}: ${info.file} has no tensor ${w} of shape [${torchShape}]`);
        }
        tf.tidy(() => {
          const x = tf.tensor(t.data, t.shape);
          model.weights.get(w)!.assign(isLinear(w) ? tf.transpose(x) : x);
        });
      }
    }
    for (const [name, factory] of Object.entries(options.optimizers ?? {})) {
      const info = record.optimizers[name];
      const model = models[name];
      if (info === undefined || model === undefined) {
        throw new Error(`Cannot load checkpoint ${dir}: no optimizer state for ${name}`);
      }
      const optimizer = factory(model);
      optimizers[name] = optimizer;
      const file = decodeSafetensors(
        await readVerified(dir, info.file, info.bytes, info.sha256),
        `${dir}/${info.file}`,
      );
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

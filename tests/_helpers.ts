// Shared test helpers: leak checks, backend loops, seeded fixtures, finite differences.
import assert from "node:assert/strict";
import { tf } from "../lib/tf.ts";
import { type BackendName, releaseBackend, setBackend, webgpuAvailable } from "../lib/backend.ts";
import { createRng } from "../lib/random.ts";
import { commandSucceeds } from "../lib/cli/command_probe.ts";
import { buildData, type BuildDataOptions, loadData, type LoadedData } from "../lib/data/build.ts";
import type { MemoryFormat } from "../lib/env/teacher.ts";
import type { LmSequence } from "../lib/train/collate.ts";
import type { Episode } from "../lib/env/rollout.ts";
import { teacherDemonstrations } from "../lib/train/demos.ts";

/** Runs `fn` once to warm up, then asserts a second run leaves no new tensors. */
export function assertNoTensorLeak(fn: () => unknown): void {
  tf.dispose(fn() as tf.TensorContainer);
  const before = tf.memory().numTensors;
  tf.dispose(fn() as tf.TensorContainer);
  assert.equal(tf.memory().numTensors, before, "tensor count changed across calls");
}

/** Async variant of {@linkcode assertNoTensorLeak}. */
export async function assertNoTensorLeakAsync(fn: () => Promise<unknown>): Promise<void> {
  tf.dispose((await fn()) as tf.TensorContainer);
  const before = tf.memory().numTensors;
  tf.dispose((await fn()) as tf.TensorContainer);
  assert.equal(tf.memory().numTensors, before, "tensor count changed across calls");
}

/** The Python with torch the tests use: Debian's, where python3-torch installs (`MEMPO_PYTHON` overrides it). */
export const PYTHON = Deno.env.get("MEMPO_PYTHON") ?? "/usr/bin/python3";

let torchProbe: Promise<boolean> | undefined;

/**
 * Whether {@linkcode PYTHON} imports torch (probed once per process). When it does not: prints
 * `skipped: <what>: … (install: …)` and returns false, or throws when `MEMPO_REQUIRE_TORCH=1` (CI installs
 * python3-torch, so a missing torch there is a failure).
 */
export async function hasTorch(what: string): Promise<boolean> {
  torchProbe ??= commandSucceeds(PYTHON, ["-c", "import torch"]);
  if (await torchProbe) return true;
  const line = `skipped: ${what}: ${PYTHON} has no torch (install: apt-get install python3-torch libopenblas0-pthread)`;
  if (Deno.env.get("MEMPO_REQUIRE_TORCH") === "1") throw new Error(`MEMPO_REQUIRE_TORCH=1 but ${line}`);
  console.log(line);
  return false;
}

/** `MEMPO_SKIP_WEBGPU=1`: no GPU driver in this process (see `webgpuAvailable`). */
export const SKIP_WEBGPU = Deno.env.get("MEMPO_SKIP_WEBGPU") === "1";

/** Backends to compare: cpu and wasm always, webgpu where an adapter exists. */
export async function parityBackends(): Promise<BackendName[]> {
  const names: BackendName[] = ["wasm", "cpu"];
  if (await webgpuAvailable()) names.push("webgpu");
  return names;
}

/** Reads every tensor of a record with the async `array()` (GPU backends cannot read synchronously), then disposes it. */
export async function readAll<K extends string>(
  tensors: Record<K, tf.Tensor>,
): Promise<Record<K, number | number[] | number[][] | number[][][]>> {
  const out = {} as Record<K, number | number[] | number[][] | number[][][]>;
  for (const k of Object.keys(tensors) as K[]) out[k] = (await tensors[k].array()) as number[][];
  tf.dispose(Object.values(tensors) as tf.Tensor[]);
  return out;
}

/** Runs `fn` (which returns tensors) on each backend and reads the results; restores wasm and frees webgpu's device. */
export async function onBackends<K extends string>(
  names: BackendName[],
  fn: () => Record<K, tf.Tensor> | Promise<Record<K, tf.Tensor>>,
): Promise<Map<BackendName, Record<K, number | number[] | number[][] | number[][][]>>> {
  const out = new Map<BackendName, Record<K, number | number[] | number[][] | number[][][]>>();
  try {
    for (const name of names) {
      await setBackend(name);
      out.set(name, await readAll(await fn()));
    }
  } finally {
    await setBackend("wasm");
    if (names.includes("webgpu")) await releaseBackend("webgpu");
  }
  return out;
}

/** A seeded `[B][T]` normal matrix. */
export function randomMatrix(B: number, T: number, seed: number, scale = 1, shift = 0): number[][] {
  const rng = createRng(seed);
  return Array.from({ length: B }, () => Array.from({ length: T }, () => shift + scale * rng.normal()));
}

/** A `[B][T]` mask with a full row, a prefix row, a tool hole, an empty row, a single token. */
export function holeyMask(B: number, T: number): number[][] {
  return Array.from({ length: B }, (_, b) =>
    Array.from({ length: T }, (_, t) => {
      if (b % 5 === 1) return t < T - 2 ? 1 : 0;
      if (b % 5 === 2) return t >= 2 && t < 4 ? 0 : 1;
      if (b % 5 === 3) return 0;
      if (b % 5 === 4) return t === 1 ? 1 : 0;
      return 1;
    }));
}

/** Central finite-difference gradient of a scalar function of a matrix (float64). */
export function finiteDifference(f: (x: number[][]) => number, x: number[][], h = 1e-6): number[][] {
  return x.map((row, b) =>
    row.map((_, t) => {
      const plus = x.map((r) => r.slice());
      const minus = x.map((r) => r.slice());
      plus[b]![t]! += h;
      minus[b]![t]! -= h;
      return (f(plus) - f(minus)) / (2 * h);
    })
  );
}

/** The PyTorch golden cases (tests/_reference/torch_reference.py). */
export async function torchReference(): Promise<Record<string, unknown>> {
  const text = await Deno.readTextFile(new URL("./_fixtures/torch_reference.json", import.meta.url));
  return JSON.parse(text).cases;
}

/** `tf.tensor2d` of a nested array (float32). */
export function t2(x: readonly (readonly number[])[]): tf.Tensor2D {
  return tf.tensor2d(x.map((r) => Array.from(r)));
}

/**
 * A fresh data directory with one test set of `objectives` objectives (`count` questions, 4 training questions) and
 * the scripted teacher's memory-context turns on it, no drops: what a diagnostic's test scores.
 */
export async function teacherTestTurns(
  seed: number,
  objectives: number,
  count: number,
  options: { data?: BuildDataOptions; memory?: MemoryFormat } = {},
): Promise<{ data: LoadedData; sequences: LmSequence[]; episodes: Episode[] }> {
  const dir = await Deno.makeTempDir();
  await buildData(dir, seed, {
    trainCount: 4,
    testCount: count,
    testObjectives: [objectives],
    ...options.data,
  });
  const data = await loadData(dir);
  const { sequences, episodes } = await teacherDemonstrations(data, {
    count,
    dropProbability: 0,
    seed: 0,
    policies: ["memory"],
    records: data.test.get(objectives)!,
    ...(options.memory ? { memory: options.memory } : {}),
  });
  return { data, sequences, episodes };
}

/**
 * The first seed in [from, to) whose draw passes `ok`, for a fixture that needs a property of a random draw (a
 * transcript that differs, an outcome of each kind) rather than one lucky seed; fails naming `what` when none does.
 */
export async function firstSeed<T>(
  from: number,
  to: number,
  draw: (seed: number) => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
): Promise<T> {
  for (let seed = from; seed < to; seed++) {
    const value = await draw(seed);
    if (ok(value)) return value;
  }
  throw new assert.AssertionError({ message: `no seed in ${from}..${to - 1} gives ${what}` });
}

/**
 * The safetensors file format (little-endian float32 only): an 8-byte header
 * length, a JSON header, then raw tensor bytes.
 *
 * @module
 */

/** One tensor of a safetensors file. */
export interface NamedArray {
  /** Tensor name. */
  name: string;
  /** Shape. */
  shape: number[];
  /** Values (row-major). */
  data: Float32Array;
}

/** A decoded safetensors file. */
export interface SafetensorsFile {
  /** Tensors in file order. */
  tensors: NamedArray[];
  /** The optional `__metadata__` string map. */
  metadata: Record<string, string>;
}

const MAX_HEADER = 100 * 1024 * 1024;

/**
 * Serialises float32 tensors as safetensors.
 *
 * ```text
 * [u64 LE n][n bytes of JSON, space-padded to 8][tensor bytes, in order]
 * header[name] = {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}
 * ```
 *
 * Source: Hugging Face safetensors format specification.
 *
 * @param tensors Named arrays.
 * @param metadata Optional string metadata.
 * @returns The file's bytes.
 *
 * @example Round trip
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeSafetensors, encodeSafetensors } from "./safetensors.ts";
 *
 * const bytes = encodeSafetensors([{ name: "w", shape: [2], data: new Float32Array([1, 2]) }], { step: "3" });
 * const file = decodeSafetensors(bytes);
 * assert.deepEqual([...file.tensors[0]!.data], [1, 2]);
 * assert.equal(file.metadata.step, "3");
 * ```
 */
export function encodeSafetensors(tensors: readonly NamedArray[], metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let offset = 0;
  for (const t of tensors) {
    const size = t.shape.reduce((a, b) => a * b, 1);
    if (size !== t.data.length) {
      throw new TypeError(`Cannot encode ${t.name}: shape [${t.shape}] has ${size} values, data has ${t.data.length}`);
    }
    header[t.name] = { dtype: "F32", shape: t.shape, data_offsets: [offset, offset + 4 * size] };
    offset += 4 * size;
  }
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8 !== 0) json += " ";
  const head = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + head.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let pos = 8 + head.length;
  for (const t of tensors) {
    const bytes = new Uint8Array(t.data.length * 4);
    const dv = new DataView(bytes.buffer);
    t.data.forEach((v, i) => dv.setFloat32(4 * i, v, true));
    out.set(bytes, pos);
    pos += bytes.length;
  }
  return out;
}

/**
 * Parses a safetensors file, refusing truncated or malformed input with an
 * error that names what is wrong.
 *
 * Source: Hugging Face safetensors format specification.
 *
 * @param bytes The file's bytes.
 * @param source A name for error messages (e.g. the path).
 * @returns Tensors and metadata.
 *
 * @example A truncated file is refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeSafetensors, encodeSafetensors } from "./safetensors.ts";
 *
 * const bytes = encodeSafetensors([{ name: "w", shape: [4], data: new Float32Array(4) }]);
 * assert.throws(() => decodeSafetensors(bytes.slice(0, bytes.length - 3), "w.safetensors"), /w.safetensors: tensor w needs bytes/);
 * ```
 */
export function decodeSafetensors(bytes: Uint8Array, source = "safetensors file"): SafetensorsFile {
  if (bytes.length < 8) throw new TypeError(`${source}: too short for a safetensors header (${bytes.length} bytes)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  if (n > MAX_HEADER || 8 + n > bytes.length) {
    throw new TypeError(
      `${source}: header length ${n} does not fit in the file (${bytes.length} bytes): truncated or not safetensors`,
    );
  }
  let header: Record<string, { dtype?: string; shape?: number[]; data_offsets?: [number, number] }>;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch (e) {
    throw new TypeError(`${source}: header is not valid JSON (${(e as Error).message})`);
  }
  const metadata = (header.__metadata__ ?? {}) as unknown as Record<string, string>;
  const base = 8 + n;
  const tensors: NamedArray[] = [];
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    if (info.dtype !== "F32") {
      throw new TypeError(`${source}: tensor ${name} has dtype ${info.dtype}; only F32 is supported`);
    }
    const shape = info.shape ?? [];
    const [begin, end] = info.data_offsets ?? [NaN, NaN];
    const size = shape.reduce((a, b) => a * b, 1);
    if (!(Number.isInteger(begin) && end - begin === 4 * size)) {
      throw new TypeError(
        `${source}: tensor ${name} has data_offsets [${begin}, ${end}] that do not match shape [${shape}]`,
      );
    }
    if (base + end > bytes.length) {
      throw new TypeError(
        `${source}: tensor ${name} needs bytes up to ${base + end}, the file has ${bytes.length} (truncated)`,
      );
    }
    const data = new Float32Array(size);
    for (let i = 0; i < size; i++) data[i] = view.getFloat32(base + begin + 4 * i, true);
    tensors.push({ name, shape, data });
  }
  return { tensors, metadata };
}

// Input checks shared by the plain-array estimators of this directory.

/** A `[B][T]` nested array of numbers. */
export type Matrix = readonly (readonly number[])[];

/** Throws unless `x` is a non-ragged `[B][T]` array of finite numbers; returns `[B, T]`. */
export function assertMatrix(x: unknown, name: string, fn: string): [number, number] {
  if (!Array.isArray(x)) {
    throw new TypeError(`Cannot compute ${fn}: ${name} must be a [B][T] array, current value is ${typeof x}`);
  }
  const T = Array.isArray(x[0]) ? x[0].length : 0;
  for (let b = 0; b < x.length; b++) {
    const row = x[b];
    if (!Array.isArray(row) || row.length !== T) {
      throw new TypeError(
        `Cannot compute ${fn}: ${name}[${b}] must be an array of length ${T} (rows must not be ragged), current value has length ${
          Array.isArray(row) ? row.length : "none"
        }`,
      );
    }
    for (let t = 0; t < T; t++) {
      const v = row[t];
      if (typeof v !== "number" || !Number.isFinite(v)) {
        throw new RangeError(
          `Cannot compute ${fn}: ${name}[${b}][${t}] must be a finite number, current value is ${String(v)}`,
        );
      }
    }
  }
  return [x.length, T];
}

/** Throws unless `x` is an array of finite numbers. */
export function assertVector(x: unknown, name: string, fn: string): number {
  if (!Array.isArray(x)) {
    throw new TypeError(`Cannot compute ${fn}: ${name} must be an array, current value is ${typeof x}`);
  }
  x.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new RangeError(
        `Cannot compute ${fn}: ${name}[${i}] must be a finite number, current value is ${String(v)}`,
      );
    }
  });
  return x.length;
}

/** Throws unless two shapes are equal. */
export function assertShapeEqual(
  a: [number, number],
  b: [number, number],
  nameA: string,
  nameB: string,
  fn: string,
): void {
  if (a[0] !== b[0] || a[1] !== b[1]) {
    throw new TypeError(
      `Cannot compute ${fn}: ${nameB} must have shape [${a.join(", ")}] like ${nameA}, current shape is [${
        b.join(", ")
      }]`,
    );
  }
}

/** Throws unless `mask` holds only 0 and 1. */
export function assertBinaryMask(mask: Matrix, name: string, fn: string): void {
  mask.forEach((row, b) =>
    row.forEach((v, t) => {
      if (v !== 0 && v !== 1) {
        throw new RangeError(`Cannot compute ${fn}: ${name}[${b}][${t}] must be 0 or 1, current value is ${v}`);
      }
    })
  );
}

/** Throws unless `v` is a finite number in `[lo, hi]`. */
export function assertInRange(v: number, lo: number, hi: number, name: string, fn: string): void {
  if (typeof v !== "number" || !(v >= lo && v <= hi)) {
    throw new RangeError(`Cannot compute ${fn}: ${name} must be in [${lo}, ${hi}], current value is ${v}`);
  }
}

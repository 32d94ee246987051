/**
 * Fault injection for interrupt tests: a named point in the code where the
 * process kills itself when the environment asks it to, so a test can stop a
 * real `deno task train` at an exact moment (between a checkpoint's renames,
 * during a resume's rewrite, …) instead of at a random one.
 *
 * @module
 */

let armed: { point: string; at: number; signal: Deno.Signal } | null | undefined;
const hits = new Map<string, number>();

function readSpec(): { point: string; at: number; signal: Deno.Signal } | null {
  let spec: string | undefined;
  try {
    spec = Deno.env.get("MEMPO_FAULT");
  } catch {
    return null; // no env permission: never armed
  }
  const m = spec?.match(/^([a-z-]+)(?:@(\d+))?(?::(SIG[A-Z]+))?$/);
  if (spec === undefined || spec === "") return null;
  if (!m) {
    throw new RangeError(`Invalid MEMPO_FAULT: must be point[@n][:SIGNAL], current value is ${JSON.stringify(spec)}`);
  }
  return { point: m[1]!, at: Number(m[2] ?? 1), signal: (m[3] ?? "SIGKILL") as Deno.Signal };
}

/**
 * Marks a named point. When `MEMPO_FAULT` is `point[@n][:SIGNAL]` (for example
 * `checkpoint-swap@2` or `rl-step-logged@3:SIGINT`), the n-th time this
 * process reaches `point` it sends itself `SIGNAL` (default `SIGKILL`: it dies
 * there; `SIGINT` runs the Ctrl-C handler as a user's key press would).
 * Unset, it does nothing.
 *
 * The points: `checkpoint-staged` (a checkpoint's files all written, not yet
 * current), `checkpoint-swap` (between the two renames that make it current),
 * `checkpoint-swapped` (current, the previous one not yet removed),
 * `rl-step-logged` (an RL step's metrics row appended), `resume-config` and
 * `resume-metrics` (a resume's rewrite of `config.json` / `metrics.jsonl`
 * written to its temporary file, not yet renamed), `eval-files` (between
 * `eval.json` and the other evaluation files).
 *
 * Source: the failpoints of FreeBSD `fail(9)` and TiKV's `fail-rs` (named points armed from the environment).
 *
 * @param point The point's name.
 * @returns Nothing (or never, when it fires with `SIGKILL`).
 *
 * @example Unarmed, a point does nothing: the process goes on
 * ```ts
 * import assert from "node:assert/strict";
 * import { faultPoint } from "./fault_point.ts";
 *
 * let passed = 0;
 * for (let i = 0; i < 3; i++) {
 *   faultPoint("checkpoint-staged");
 *   passed += 1;
 * }
 * assert.equal(passed, 3);
 * ```
 */
export function faultPoint(point: string): void {
  if (armed === undefined) armed = readSpec();
  if (armed === null || armed.point !== point) return;
  const n = (hits.get(point) ?? 0) + 1;
  hits.set(point, n);
  if (n === armed.at) Deno.kill(Deno.pid, armed.signal);
}

/**
 * How a series looks: a colour, a marker symbol and a dash pattern, chosen so
 * that curves lying on top of each other stay told apart (the marker shapes
 * are outlines that show through one another; the dashes differ).
 *
 * @module
 */

/** A series' look. */
export interface SeriesStyle {
  /** Stroke colour (CSS). */
  color: string;
  /** Marker: a Plot symbol name (outline symbols: `circle`, `plus`, `times`, `triangle2`, ...). */
  symbol: string;
  /** SVG `stroke-dasharray`; `""` is a solid line. */
  dash: string;
  /** Stroke width (px). @default 1.75 */
  width?: number;
  /** Stroke opacity (0–1). @default 1 */
  opacity?: number;
}

/** Colours in slot order (Observable's `observable10` categorical scheme, first eight). */
export const SERIES_COLORS: readonly string[] = [
  "#4269d0",
  "#efb118",
  "#ff725c",
  "#6cc5b0",
  "#3ca951",
  "#ff8ab7",
  "#a463f2",
  "#9c6b4e",
];

/** Marker symbols in slot order: Plot's outline symbols, which stay visible when drawn over each other. */
export const SERIES_SYMBOLS: readonly string[] = [
  "circle",
  "plus",
  "triangle2",
  "times",
  "square2",
  "diamond2",
  "asterisk",
];

/** Dash patterns in slot order: solid, dashed, dotted, dash-dot. */
export const SERIES_DASHES: readonly string[] = ["", "6 3", "1.5 2.5", "8 3 1.5 3"];

/**
 * The agents' names in their style slots, so an agent looks the same in every
 * figure (evaluation and training curves): the teacher and SFT, then the RL
 * algorithms, as `lib/eval/evaluate.ts` names them (`TEACHER_AGENT`,
 * `SFT_AGENT`, `AGENT_NAMES`; tests/viz/series_style_test.ts checks the two agree).
 */
export const AGENT_ORDER: readonly string[] = ["Teacher", "SFT", "PPO", "GRPO", "MemPO"];

/**
 * The style of slot `i`: colour, marker and dash each cycle through their lists.
 *
 * Source: Cleveland & McGill; Tufte: redundant encodings (shape and line type
 * besides colour) keep overlapping series readable, and in grey print.
 *
 * @param i The slot (≥ 0).
 * @returns The style.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { seriesStyle } from "./series_style.ts";
 *
 * assert.deepEqual(seriesStyle(1), { color: "#efb118", symbol: "plus", dash: "6 3" });
 * ```
 */
export function seriesStyle(i: number): SeriesStyle {
  if (!(Number.isInteger(i) && i >= 0)) throw new Error(`seriesStyle: slot must be an integer ≥ 0, got ${i}`);
  return {
    color: SERIES_COLORS[i % SERIES_COLORS.length]!,
    symbol: SERIES_SYMBOLS[i % SERIES_SYMBOLS.length]!,
    dash: SERIES_DASHES[i % SERIES_DASHES.length]!,
  };
}

/**
 * Slots for agents by name: a name of {@linkcode AGENT_ORDER} takes its index
 * there, any other name the next slot after them, in the order given.
 *
 * Source: this package (one look per agent across figures).
 *
 * @param names The agents (duplicates allowed).
 * @returns Slot per distinct name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { agentSlots } from "./series_style.ts";
 *
 * assert.deepEqual([...agentSlots(["MemPO", "mine", "PPO", "MemPO"])], [["MemPO", 4], ["mine", 5], ["PPO", 2]]);
 * ```
 */
export function agentSlots(names: readonly string[]): Map<string, number> {
  const slots = new Map<string, number>();
  let next = AGENT_ORDER.length;
  for (const name of names) {
    if (slots.has(name)) continue;
    const known = AGENT_ORDER.indexOf(name);
    slots.set(name, known >= 0 ? known : next++);
  }
  return slots;
}

/**
 * A legend drawn as its own Plot chart (a line sample in the series' dash, its
 * marker, its name), to be placed beside the data so that it covers none.
 *
 * @module
 */
import * as Plot from "@observablehq/plot";
import type { PlotPanel } from "./plot_svg.ts";
import type { SeriesStyle } from "./series_style.ts";

/** One legend row. */
export interface LegendEntry {
  /** The series' name. */
  label: string;
  /** Its look. */
  style: SeriesStyle;
}

/** Height of a legend row (px). */
export const LEGEND_ROW = 16;

const SAMPLE = 28; // px of line sample

/** A generous width (px) of a character in a 10 px sans-serif font (system-ui's are narrower). */
function charWidth(c: string): number {
  if ("MWmw@%".includes(c)) return 9;
  if (" ,.:;'|!il()[]".includes(c)) return 3.5;
  if (/[A-Z]/.test(c)) return 7.2;
  return 6;
}

/**
 * The legend's size: one {@linkcode LEGEND_ROW} per entry; the width fits the
 * sample and the widest label (`28 + 8 + Σ char widths + 6` px, rounded up; a
 * character counts 9 px for M and W, 7.2 for other capitals, 3.5 for narrow
 * ones such as i, l, space and brackets, 6 for the rest).
 *
 * Source: this package.
 *
 * @param entries The rows.
 * @returns Width and height (px).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { legendSize } from "./legend.ts";
 *
 * // MemPO: 9 + 6 + 9 + 7.2 + 7.2 = 38.4 px of text → ⌈28 + 8 + 38.4 + 6⌉ = 81
 * const style = { color: "red", symbol: "circle", dash: "" };
 * assert.deepEqual(legendSize([{ label: "MemPO", style }, { label: "ab", style }]), { width: 81, height: 40 });
 * ```
 */
export function legendSize(entries: readonly LegendEntry[]): { width: number; height: number } {
  const text = Math.max(0, ...entries.map((e) => [...e.label].reduce((w, c) => w + charWidth(c), 0)));
  return { width: Math.ceil(SAMPLE + 8 + text + 6), height: LEGEND_ROW * entries.length + 8 };
}

/**
 * The legend as a panel at (x, y): row i at height `4 + 16·(i + ½)` px holds a
 * line sample in the entry's colour and dash, its marker at the sample's middle,
 * and its label.
 *
 * Source: Observable Plot marks (`line`, `dot`, `text`) on fixed scales.
 *
 * @param entries The rows, top to bottom.
 * @param x Left edge in the figure (px).
 * @param y Top edge in the figure (px).
 * @returns The panel (role `legend`), sized by {@linkcode legendSize}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { legendPanel } from "./legend.ts";
 * import { renderPanels } from "./plot_svg.ts";
 *
 * const panel = legendPanel([{ label: "MemPO", style: { color: "#3ca951", symbol: "square2", dash: "" } }], 0, 0);
 * const svg = renderPanels([panel], { width: panel.options.width, height: panel.options.height });
 * assert.match(svg, />MemPO<\/text>/);
 * ```
 */
export function legendPanel(entries: readonly LegendEntry[], x: number, y: number): PlotPanel {
  const { width, height } = legendSize(entries);
  const rows = entries.map((e, i) => ({ ...e, i }));
  const marks = rows.flatMap((e) => [
    Plot.line([[0, e.i], [1, e.i]], {
      stroke: e.style.color,
      strokeWidth: e.style.width ?? 1.75,
      strokeOpacity: e.style.opacity ?? 1,
      strokeDasharray: e.style.dash || undefined,
    }),
    Plot.dot([[0.5, e.i]], { symbol: e.style.symbol, stroke: e.style.color, strokeWidth: 1.5, r: 4.5 }),
  ]);
  marks.push(
    Plot.text(rows, { x: () => 1, y: "i", text: "label", dx: 8, textAnchor: "start", fill: "currentColor" }),
  );
  const n = Math.max(1, entries.length);
  return {
    role: "legend",
    x,
    y,
    options: {
      width,
      height,
      margin: 0,
      x: { type: "linear", domain: [0, 1], range: [2, SAMPLE], axis: null },
      y: {
        type: "linear",
        domain: [0, n - 1 || 1],
        range: [4 + LEGEND_ROW / 2, 4 + LEGEND_ROW * (n - 0.5)],
        axis: null,
      },
      marks,
    },
  };
}

/**
 * A dependency-free SVG line plot, displayable in Jupyter (`image/svg+xml`)
 * and writable to a file.
 *
 * @module
 */

/** One named series of (x, y) points. */
export interface Series {
  /** Legend label. */
  name: string;
  /** Points, in x order. */
  points: readonly (readonly [number, number])[];
}

/** Options of {@linkcode linePlot}. */
export interface LinePlotOptions {
  /** Title. */
  title?: string;
  /** x-axis label. */
  xLabel?: string;
  /** y-axis label. */
  yLabel?: string;
  /** Width in px. @default 560 */
  width?: number;
  /** Height in px. @default 320 */
  height?: number;
}

/** The Deno Jupyter kernel's rich-display hook. */
export const JUPYTER_DISPLAY: unique symbol = Symbol.for("Jupyter.display") as typeof JUPYTER_DISPLAY;

/** An SVG figure: its text, and a Jupyter display hook. */
export interface SvgFigure {
  /** The SVG document. */
  svg: string;
  /** Jupyter rich display (Deno kernel). */
  [JUPYTER_DISPLAY](): Record<string, string>;
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * Draws series as lines with markers, axes with 5 ticks, and a legend.
 *
 * Source: standard line chart; output as the SVG 1.1 XML namespace.
 *
 * @param series The data.
 * @param options Labels and size.
 * @returns The figure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JUPYTER_DISPLAY, linePlot } from "./line_plot.ts";
 *
 * const fig = linePlot([{ name: "F1", points: [[1, 0.9], [2, 0.8]] }], { title: "F1 vs objectives" });
 * assert.match(fig.svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
 * assert.ok(fig[JUPYTER_DISPLAY]()["image/svg+xml"]!.includes("F1 vs objectives"));
 * ```
 */
export function linePlot(series: readonly Series[], options: LinePlotOptions = {}): SvgFigure {
  const { title = "", xLabel = "", yLabel = "", width = 560, height = 320 } = options;
  const m = { left: 56, right: 130, top: 30, bottom: 42 };
  const pts = series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const [x0, x1] = xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
  let [y0, y1] = ys.length ? [Math.min(0, ...ys), Math.max(...ys)] : [0, 1];
  if (y1 === y0) y1 = y0 + 1;
  const sx = (x: number) => m.left + ((x - x0) / (x1 - x0 || 1)) * (width - m.left - m.right);
  const sy = (y: number) => height - m.bottom - ((y - y0) / (y1 - y0)) * (height - m.top - m.bottom);
  const fmt = (v: number) => (Math.abs(v) >= 1000 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="18" text-anchor="middle" font-size="13">${esc(title)}</text>`,
    `<line x1="${m.left}" y1="${height - m.bottom}" x2="${width - m.right}" y2="${height - m.bottom}" stroke="#333"/>`,
    `<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${height - m.bottom}" stroke="#333"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const yv = y0 + ((y1 - y0) * i) / 4;
    const xv = x0 + ((x1 - x0) * i) / 4;
    parts.push(
      `<text x="${m.left - 6}" y="${sy(yv) + 4}" text-anchor="end">${fmt(yv)}</text>`,
      `<line x1="${m.left}" y1="${sy(yv)}" x2="${width - m.right}" y2="${sy(yv)}" stroke="#eee"/>`,
      `<text x="${sx(xv)}" y="${height - m.bottom + 16}" text-anchor="middle">${fmt(xv)}</text>`,
    );
  }
  parts.push(
    `<text x="${(m.left + width - m.right) / 2}" y="${height - 8}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text x="14" y="${(m.top + height - m.bottom) / 2}" text-anchor="middle" transform="rotate(-90 14 ${
      (m.top + height - m.bottom) / 2
    })">${esc(yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const p = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    if (p.length > 0) {
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${
          p.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ")
        }"/>`,
        ...p.map(([x, y]) => `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="3" fill="${color}"/>`),
      );
    }
    const ly = m.top + 14 * i + 6;
    parts.push(
      `<line x1="${width - m.right + 10}" y1="${ly}" x2="${
        width - m.right + 26
      }" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${width - m.right + 30}" y="${ly + 4}">${esc(s.name)}</text>`,
    );
  });
  parts.push("</svg>");
  const svg = parts.join("\n");
  return { svg, [JUPYTER_DISPLAY]: () => ({ "image/svg+xml": svg }) };
}

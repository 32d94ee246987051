/**
 * Line charts drawn with Observable Plot: series as lines with markers, one or
 * more panels stacked over a shared x axis, and a legend beside the data.
 * Displayable in Jupyter (`image/svg+xml`) and writable to a file.
 *
 * @module
 */
import * as Plot from "@observablehq/plot";
import { type SvgFigure, svgFigure } from "./display.ts";
import { legendPanel, legendSize } from "./legend.ts";
import { type PlotPanel, renderPanels } from "./plot_svg.ts";
import { type SeriesStyle, seriesStyle } from "./series_style.ts";

/** One named series of (x, y) points. */
export interface Series {
  /** Legend label. */
  name: string;
  /** Points, in x order; a non-finite y breaks the line there. */
  points: readonly (readonly [number, number])[];
  /** Its look; what is left out comes from {@linkcode seriesStyle} of the series' slot (its place in the legend). */
  style?: Partial<SeriesStyle>;
}

/** One panel of {@linkcode linePanels}. */
export interface LinePanel {
  /** The data. */
  series: readonly Series[];
  /** y-axis label (with its unit). */
  yLabel?: string;
  /** y domain (widened to nice values); default: the data's extent. */
  yDomain?: readonly [number, number];
}

/** Options of {@linkcode linePanels}. */
export interface LinePanelsOptions {
  /** Title, above the first panel. */
  title?: string;
  /** x-axis label (with its unit), under the last panel. */
  xLabel?: string;
  /** Width of the whole figure, legend included (px). @default 680 */
  width?: number;
  /** Height of each panel (px). @default 300 */
  height?: number;
  /** x ticks; default: every distinct x when they are at most 16 integers, else Plot's ticks. */
  xTicks?: readonly number[];
}

/** Options of {@linkcode linePlot}. */
export interface LinePlotOptions extends LinePanelsOptions {
  /** y-axis label (with its unit). */
  yLabel?: string;
  /** y domain (widened to nice values); default: the data's extent. */
  yDomain?: readonly [number, number];
}

/** Markers on at most ~12 points of a long series (every k-th, from the first), on all of a short one. */
function markerIndex(n: number): (i: number) => boolean {
  const k = n <= 16 ? 1 : Math.ceil(n / 12);
  return (i) => i % k === 0;
}

/**
 * Draws panels of line series stacked over one x axis, with the legend to the
 * right of the data (one row per distinct series name, in order of first
 * appearance) so that it covers none of it. Each series is a line in its dash
 * pattern with its marker symbol on every point of a short series (≤ 16
 * points) and on every ⌈n/12⌉-th point of a longer one: equal curves stay
 * visible as different markers on one line. Wider strokes are drawn first
 * (a thin line runs inside a wide band), markers after all lines.
 *
 * Layout: the legend is `legendSize` wide at the right; the charts fill the
 * rest; each panel is `height` px high (margins included), the last one keeps
 * 40 px below for the x ticks and label.
 *
 * Source: Observable Plot (`line`, `dot`, `frame` marks; linear scales);
 * stacked panels with a shared x as in TensorBoard / W&B training dashboards.
 *
 * @param panels The panels, top to bottom.
 * @param options Title, labels, size, x ticks.
 * @returns The figure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { linePanels } from "./line_plot.ts";
 *
 * const a = { name: "a", points: [[0, 1], [1, 2]] as [number, number][] };
 * const fig = linePanels([{ series: [a], yLabel: "reward" }, { series: [a], yLabel: "KL (nats)" }], { xLabel: "step" });
 * assert.equal(fig.svg.match(/data-panel="chart"/g)?.length, 2);
 * assert.equal(fig.svg.match(/data-panel="legend"/g)?.length, 1);
 * ```
 */
export function linePanels(panels: readonly LinePanel[], options: LinePanelsOptions = {}): SvgFigure {
  const { title, xLabel = "", width = 680, height = 300 } = options;
  if (panels.length === 0) throw new Error("linePanels: panels is empty: give at least one panel");
  for (const [name, v] of [["width", width], ["height", height]] as const) {
    if (!(Number.isFinite(v) && v >= 120)) throw new Error(`linePanels: ${name} must be ≥ 120 px, got ${v}`);
  }
  // one legend row per series name; a name's slot is its place there
  const entries = new Map<string, SeriesStyle>();
  for (const s of panels.flatMap((p) => p.series)) {
    if (!entries.has(s.name)) entries.set(s.name, { ...seriesStyle(entries.size), ...s.style });
  }
  const legend = [...entries].map(([label, style]) => ({ label, style }));
  const legendWidth = legend.length > 0 ? legendSize(legend).width : 0;
  const chartWidth = width - legendWidth - (legend.length > 0 ? 12 : 0);
  if (chartWidth < 120) {
    throw new Error(
      `linePanels: width ${width} leaves ${chartWidth} px for the chart beside a ${legendWidth} px legend`,
    );
  }
  const finite = (v: number) => Number.isFinite(v);
  const xs = panels.flatMap((p) => p.series.flatMap((s) => s.points.map((q) => q[0]))).filter(finite);
  const distinct = [...new Set(xs)].sort((a, b) => a - b);
  const xTicks = options.xTicks ??
    (distinct.length > 0 && distinct.length <= 16 && distinct.every(Number.isInteger) ? distinct : undefined);
  const xDomain = distinct.length > 0 ? [distinct[0]!, distinct.at(-1)!] : [0, 1];
  if (xDomain[0] === xDomain[1]) xDomain[1] = xDomain[0]! + 1;

  const titleSpace = title ? 24 : 0;
  const charts: PlotPanel[] = panels.map((panel, p) => {
    const last = p === panels.length - 1;
    const marginTop = 12 + (p === 0 ? titleSpace : 0);
    const marginBottom = last ? 40 : 24;
    const ys = panel.series.flatMap((s) => s.points.map((q) => q[1])).filter(finite);
    const marks: Plot.Markish[] = [Plot.frame({ stroke: "#bbb" })];
    // wider strokes underneath, so a thin line lying on a wide one shows on it; markers over all lines
    const strokeWidth = (s: Series) => entries.get(s.name)!.width ?? 1.75;
    const order = [...panel.series].sort((a, b) => strokeWidth(b) - strokeWidth(a));
    for (const s of order) {
      const style = entries.get(s.name)!;
      marks.push(Plot.line(s.points.map(([x, y]) => ({ x, y })), {
        x: "x",
        y: "y",
        stroke: style.color,
        strokeWidth: strokeWidth(s),
        strokeOpacity: style.opacity ?? 1,
        strokeDasharray: style.dash || undefined,
      }));
    }
    for (const s of order) {
      const style = entries.get(s.name)!;
      const marked = markerIndex(s.points.length);
      const points = s.points.map(([x, y]) => ({ x, y })).filter((q, i) => marked(i) && finite(q.x) && finite(q.y));
      marks.push(
        Plot.dot(points, { x: "x", y: "y", symbol: style.symbol, stroke: style.color, strokeWidth: 1.5, r: 4.5 }),
      );
    }
    if (p === 0 && title) {
      marks.push(
        Plot.text([title], {
          frameAnchor: "top-left",
          dy: -titleSpace,
          textAnchor: "start",
          fontSize: 13,
          fontWeight: "bold",
          fill: "currentColor",
        }),
      );
    }
    return {
      role: "chart",
      x: 0,
      y: p * height,
      options: {
        width: chartWidth,
        height,
        marginLeft: 64,
        marginRight: 14,
        marginTop,
        marginBottom,
        x: {
          type: "linear",
          domain: xDomain,
          inset: 8,
          label: last ? xLabel : null,
          labelArrow: "none",
          labelAnchor: "center",
          labelOffset: 34,
          ticks: xTicks ? [...xTicks] : undefined,
          tickFormat: xTicks && xTicks.every(Number.isInteger) ? "d" : undefined,
        },
        y: {
          type: "linear",
          domain: panel.yDomain ? [...panel.yDomain] : ys.length > 0 ? undefined : [0, 1],
          nice: true,
          inset: 8,
          grid: true,
          label: panel.yLabel ?? null,
          labelArrow: "none",
          labelAnchor: "center",
          labelOffset: 52,
        },
        marks,
      },
    };
  });
  const figureHeight = height * panels.length;
  const all = legend.length > 0 ? [...charts, legendPanel(legend, chartWidth + 12, 12 + titleSpace)] : charts;
  return svgFigure(renderPanels(all, { width, height: Math.max(figureHeight, legendSize(legend).height + 12) }));
}

/**
 * One panel of line series: {@linkcode linePanels} with a single panel.
 *
 * Source: Observable Plot line chart.
 *
 * @param series The data.
 * @param options Title, labels with units, size, x ticks, y domain.
 * @returns The figure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JUPYTER_DISPLAY } from "./display.ts";
 * import { linePlot } from "./line_plot.ts";
 *
 * const fig = linePlot([{ name: "F1", points: [[1, 0.9], [2, 0.8]] }], { title: "F1 vs objectives" });
 * assert.match(fig.svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
 * assert.ok(fig[JUPYTER_DISPLAY]()["image/svg+xml"]!.includes("F1 vs objectives"));
 * ```
 */
export function linePlot(series: readonly Series[], options: LinePlotOptions = {}): SvgFigure {
  const { yLabel, yDomain, ...rest } = options;
  return linePanels([{ series, yLabel, yDomain }], rest);
}

/**
 * The rendering glue: Observable Plot charts drawn headless on a linkedom
 * document and placed side by side or stacked into one standalone SVG, with
 * the same bytes for the same input.
 *
 * @module
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";

const SVG_NS = "http://www.w3.org/2000/svg";

// The part of linkedom's DOM used here (the package type-checks without the DOM lib).
interface DomElement {
  tagName: string;
  outerHTML: string;
  textContent: string | null;
  readonly attributes: ArrayLike<{ name: string; value: string }>;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  appendChild(child: DomElement): unknown;
  remove(): void;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}
interface DomDocument {
  createElementNS(namespace: string, name: string): DomElement;
}

/** One Plot chart placed in a figure. */
export interface PlotPanel {
  /** The chart: Plot options with `width` and `height` (px) set; no `title`, `caption` or legend. */
  options: Plot.PlotOptions & { width: number; height: number };
  /** Left edge in the figure (px). */
  x: number;
  /** Top edge in the figure (px). */
  y: number;
  /** What the panel shows (`data-panel` attribute; tests and readers find panels by it). */
  role: string;
}

/** 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

/**
 * Draws Plot charts and places them into one SVG document of the given size:
 * each chart becomes a nested `<svg x y width height data-panel>`; the root
 * carries the SVG namespace (a file that browsers and Markdown viewers open),
 * a white background, and one scoped style (Plot's per-chart styles are dropped:
 * their `height: auto` would stretch nested charts).
 *
 * Deterministic: Plot numbers the ids it makes (clip paths, markers, patterns)
 * from process-wide counters; they are renamed in order of appearance, prefixed
 * with a hash of the figure, so the same panels give the same bytes and two
 * different figures on one page never share an id.
 *
 * Source: Observable Plot `Plot.plot({document})` (headless rendering on a given
 * DOM); linkedom's `parseHTML` as that DOM.
 *
 * @param panels The charts and where they go.
 * @param size The figure's width and height (px).
 * @returns The SVG text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as Plot from "@observablehq/plot";
 * import { renderPanels } from "./plot_svg.ts";
 *
 * const chart = { width: 200, height: 100, marks: [Plot.lineY([1, 3, 2])] };
 * const svg = renderPanels([{ options: chart, x: 0, y: 0, role: "chart" }], { width: 200, height: 100 });
 * assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="200" height="100"/);
 * assert.match(svg, /<svg data-panel="chart" x="0" y="0" width="200" height="100"/);
 * assert.equal(svg, renderPanels([{ options: chart, x: 0, y: 0, role: "chart" }], { width: 200, height: 100 }));
 * ```
 */
export function renderPanels(
  panels: readonly PlotPanel[],
  size: { readonly width: number; readonly height: number },
): string {
  for (const [name, v] of Object.entries(size)) {
    if (!(Number.isFinite(v) && v > 0)) throw new Error(`renderPanels: size.${name} must be > 0, got ${v}`);
  }
  const { document } = parseHTML("<!doctype html><html><body></body></html>") as unknown as { document: DomDocument };
  const root = document.createElementNS(SVG_NS, "svg");
  const attrs: Record<string, string> = {
    xmlns: SVG_NS,
    width: String(size.width),
    height: String(size.height),
    viewBox: `0 0 ${size.width} ${size.height}`,
    class: "mempo-figure",
    "font-family": "system-ui, sans-serif",
    "font-size": "10",
    style: "background: white; color: #222",
  };
  // linkedom writes attributes last-set first: set them in reverse for the order above
  for (const [k, v] of Object.entries(attrs).reverse()) root.setAttribute(k, v);
  const style = document.createElementNS(SVG_NS, "style");
  style.textContent = ".mempo-figure text, .mempo-figure tspan { white-space: pre; }";
  root.appendChild(style);
  for (const panel of panels) {
    const { options, x, y, role } = panel;
    for (const v of ["title", "subtitle", "caption", "legend"]) {
      if ((options as unknown as Record<string, unknown>)[v] !== undefined) {
        throw new Error(`renderPanels: panel "${role}" sets ${v}, which makes Plot return HTML, not SVG`);
      }
    }
    const chart = Plot.plot({
      ...options,
      document: document as unknown as Plot.PlotOptions["document"],
    }) as unknown as DomElement;
    if (chart.tagName.toLowerCase() !== "svg") {
      throw new Error(`renderPanels: panel "${role}" rendered a <${chart.tagName}>, not an <svg>`);
    }
    for (const s of Array.from(chart.querySelectorAll("style"))) s.remove();
    chart.removeAttribute("class");
    // attributes in a fixed order: the panel's place first
    const own = Array.from(chart.attributes, (a): [string, string] => [a.name, a.value]);
    for (const [k] of own) chart.removeAttribute(k);
    const placed: [string, string][] = [
      ["data-panel", role],
      ["x", String(x)],
      ["y", String(y)],
      ["width", String(options.width)],
      ["height", String(options.height)],
      ...own.reverse().filter(([k]) => !["width", "height"].includes(k)),
    ];
    for (const [k, v] of placed.reverse()) chart.setAttribute(k, v);
    root.appendChild(chart);
  }
  const text: string = root.outerHTML;
  const idPattern = /plot-(clip|pattern|marker)-\d+/g;
  const prefix = fnv1a(text.replace(idPattern, "plot-$1"));
  const renamed = new Map<string, string>();
  return text.replace(idPattern, (id) => {
    if (!renamed.has(id)) renamed.set(id, `plot-${prefix}-${renamed.size + 1}`);
    return renamed.get(id)!;
  });
}

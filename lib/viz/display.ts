/**
 * Displayables: the Deno Jupyter kernel's rich-display hook, and an SVG
 * figure that a notebook shows inline and a run writes to a file.
 *
 * @module
 */

/** The Deno Jupyter kernel's rich-display hook (`Symbol.for("Jupyter.display")`). */
export const JUPYTER_DISPLAY: unique symbol = Symbol.for("Jupyter.display") as typeof JUPYTER_DISPLAY;

/** An SVG figure: its text, and a Jupyter display hook. */
export interface SvgFigure {
  /** The standalone SVG document (with the SVG namespace). */
  svg: string;
  /** Jupyter rich display (Deno kernel): `image/svg+xml`, and `text/html` (the same SVG as an `<img>`). */
  [JUPYTER_DISPLAY](): Record<string, string>;
}

/**
 * Wraps SVG text as a figure that Jupyter displays as `image/svg+xml`, with
 * the same SVG as an `<img>` data URL under `text/html`: `jupyter nbconvert
 * --to html` (6.x) passes `image/svg+xml` outputs through its HTML sanitizer,
 * which keeps the `<svg>` tags and drops every child (a blank figure, seen in
 * headless Chromium), while it prefers and keeps `text/html`.
 *
 * ```text
 * bundle = { "image/svg+xml": svg, "text/html": <img src="data:image/svg+xml;charset=utf-8,encodeURIComponent(svg)"> }
 * ```
 *
 * Source: Deno's Jupyter kernel, `Deno.jupyter` rich display (an object with a
 * `Symbol.for("Jupyter.display")` method returning a MIME bundle).
 *
 * @param svg A standalone SVG document.
 * @returns The figure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JUPYTER_DISPLAY, svgFigure } from "./display.ts";
 *
 * const svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>a "b" & c</text></svg>';
 * const bundle = svgFigure(svg)[JUPYTER_DISPLAY]();
 * assert.equal(bundle["image/svg+xml"], svg);
 * const src = bundle["text/html"]!.match(/^<img alt="figure" src="data:image\/svg\+xml;charset=utf-8,([^"]*)">$/)![1]!;
 * assert.equal(decodeURIComponent(src), svg);
 * ```
 */
export function svgFigure(svg: string): SvgFigure {
  return {
    svg,
    [JUPYTER_DISPLAY]: () => ({
      "image/svg+xml": svg,
      "text/html": `<img alt="figure" src="data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}">`,
    }),
  };
}

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
  /** Jupyter rich display (Deno kernel): `image/svg+xml`. */
  [JUPYTER_DISPLAY](): Record<string, string>;
}

/**
 * Wraps SVG text as a figure that Jupyter displays as `image/svg+xml`.
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
 * const fig = svgFigure('<svg xmlns="http://www.w3.org/2000/svg"/>');
 * assert.deepEqual(fig[JUPYTER_DISPLAY](), { "image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg"/>' });
 * ```
 */
export function svgFigure(svg: string): SvgFigure {
  return { svg, [JUPYTER_DISPLAY]: () => ({ "image/svg+xml": svg }) };
}

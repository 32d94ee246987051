// Reading the SVG the figures write: parsed with linkedom (the tests type-check without the DOM lib, so the
// part of the DOM they use is typed here), and the geometry the figure tests compare.
import { parseHTML } from "linkedom";

/** The part of a parsed element the tests read. */
export interface El {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El> & ArrayLike<El>;
}

/** The root `<svg>` of an SVG text. */
export function parseSvg(svg: string): El {
  const { document } = parseHTML(`<!doctype html><html><body>${svg}</body></html>`) as unknown as { document: El };
  const root = document.querySelector("svg");
  if (root === null) throw new Error("no <svg> in the text");
  return root;
}

/** All elements under `el` matching `selector`. */
export const all = (el: El, selector: string): El[] => [...el.querySelectorAll(selector)];

/** A rectangle in figure coordinates. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const num = (el: El, name: string) => Number(el.getAttribute(name));

/** The box of a nested panel `<svg data-panel x y width height>`. */
export function panelBox(panel: El): Box {
  return { x: num(panel, "x"), y: num(panel, "y"), width: num(panel, "width"), height: num(panel, "height") };
}

/** The plot area of a chart panel: its `frame` rect, moved by the panel's offset. */
export function frameBox(panel: El): Box {
  const rect = panel.querySelector('rect[aria-label="frame"]');
  if (rect === null) throw new Error("the panel has no frame");
  const p = panelBox(panel);
  return { x: p.x + num(rect, "x"), y: p.y + num(rect, "y"), width: num(rect, "width"), height: num(rect, "height") };
}

/** Whether two boxes share any area. */
export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The points of a line path `M x,y L x,y ...`: one array per unbroken run. */
export function pathRuns(d: string): [number, number][][] {
  return d.split("M").filter(Boolean).map((run) =>
    run.split("L").map((p) => p.split(",").map(Number) as [number, number])
  );
}

/** Texts of the elements matching `selector`. */
export const texts = (el: El, selector: string): string[] => all(el, selector).map((e) => e.textContent ?? "");

/**
 * Tables for notebooks: Markdown (rendered by Jupyter) with a plain-text twin.
 *
 * @module
 */
import { JUPYTER_DISPLAY } from "./display.ts";

/** A displayable table. */
export interface TableDisplay {
  /** The Markdown text. */
  markdown: string;
  /** Jupyter rich display. */
  [JUPYTER_DISPLAY](): Record<string, string>;
}

/**
 * A Markdown table; numbers are shown with `digits` decimals.
 *
 * Source: GitHub-flavoured Markdown tables.
 *
 * @param headers Column names.
 * @param rows Cells (numbers or text).
 * @param digits Decimals for numbers. Default 4.
 * @returns A displayable table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markdownTable } from "./table.ts";
 *
 * assert.equal(markdownTable(["t", "Â"], [[0, 0.5]], 2).markdown, "| t | Â |\n| --- | --- |\n| 0.00 | 0.50 |");
 * ```
 */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly (number | string)[])[],
  digits = 4,
): TableDisplay {
  const cell = (
    v: number | string,
  ) => (typeof v === "number" ? (Number.isInteger(v) && digits === 0 ? String(v) : v.toFixed(digits)) : v);
  const markdown = [
    `| ${headers.join(" | ")} |`,
    `| ${headers.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
  return { markdown, [JUPYTER_DISPLAY]: () => ({ "text/markdown": markdown, "text/plain": markdown }) };
}

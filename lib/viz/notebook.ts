/**
 * Notebook files: the code of a notebook as one TypeScript module (for
 * type-checking) and metadata cleaning (no timestamps, counts or paths), so
 * committed notebooks are reproducible and diff well.
 *
 * @module
 */

/** A Jupyter notebook (nbformat 4), the fields this package touches. */
export interface Notebook {
  /** Cells. */
  cells: {
    cell_type: string;
    source: string | string[];
    metadata?: Record<string, unknown>;
    outputs?: unknown[];
    execution_count?: number | null;
  }[];
  /** Notebook metadata. */
  metadata: Record<string, unknown>;
  /** Format version. */
  nbformat: number;
  /** Minor version. */
  nbformat_minor: number;
}

const text = (s: string | string[]) => (Array.isArray(s) ? s.join("") : s);

/**
 * The code cells joined by `";\n"`, as a module `deno check` can type-check.
 *
 * Source: this package (tools/notebooks.ts type-checks the notebooks' code this way, beside running them under
 * the Deno Jupyter kernel, https://docs.deno.com/runtime/reference/cli/jupyter/).
 *
 * @param nb The notebook.
 * @returns TypeScript source.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notebookCode } from "./notebook.ts";
 *
 * const nb = { cells: [{ cell_type: "code", source: ["const a = 1"] }, { cell_type: "markdown", source: "x" }, { cell_type: "code", source: "a + 1" }], metadata: {}, nbformat: 4, nbformat_minor: 5 };
 * assert.equal(notebookCode(nb), "const a = 1;\na + 1\n");
 * ```
 */
export function notebookCode(nb: Notebook): string {
  return nb.cells.filter((c) => c.cell_type === "code").map((c) => text(c.source)).join(";\n") + "\n";
}

/**
 * Strips run-specific metadata: execution counts, timestamps, cell ids'
 * execution records, kernel paths; keeps outputs.
 *
 * Source: nbdev `clean_nb`; `nbstripout --keep-output`.
 *
 * @param nb The executed notebook.
 * @returns A cleaned copy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cleanNotebook } from "./notebook.ts";
 *
 * const nb = { cells: [{ cell_type: "code", source: "1", execution_count: 3, metadata: { execution: { t: 1 } }, outputs: [] }], metadata: { kernelspec: { name: "k" }, widgets: {} }, nbformat: 4, nbformat_minor: 5 };
 * const clean = cleanNotebook(nb);
 * assert.equal(clean.cells[0]!.execution_count, null);
 * assert.deepEqual(clean.cells[0]!.metadata, {});
 * assert.deepEqual(Object.keys(clean.metadata), ["kernelspec", "language_info"]);
 * ```
 */
export function cleanNotebook(nb: Notebook): Notebook {
  return {
    cells: nb.cells.map((c) => {
      const cell = { ...c, metadata: {} as Record<string, unknown> };
      if (c.cell_type === "code") {
        cell.execution_count = null;
        cell.outputs = (c.outputs ?? []).map((o) => {
          const out = { ...(o as Record<string, unknown>) };
          if ("execution_count" in out) out.execution_count = null;
          if (out.metadata !== undefined) out.metadata = {};
          return out;
        });
      }
      return cell;
    }),
    metadata: {
      kernelspec: { display_name: "Deno", language: "typescript", name: "deno" },
      language_info: { name: "typescript", file_extension: ".ts", mimetype: "text/x.typescript" },
    },
    nbformat: 4,
    nbformat_minor: nb.nbformat_minor ?? 5,
  };
}

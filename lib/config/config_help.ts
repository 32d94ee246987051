/**
 * `deno task train --help-config`: every config field with its type, its
 * value in the presets and its meaning, generated from the config schema
 * ({@linkcode EXPERIMENT_CONFIG_SCHEMA}), so the help cannot drift from the
 * checks or the types.
 *
 * @module
 */
import { z } from "zod";
import { EXPERIMENT_CONFIG_SCHEMA, PRESETS, valueAt } from "./experiment.ts";

/** One documented field of the config. */
export interface ConfigField {
  /** Dotted path (`rl.lr`). */
  path: string;
  /** Its type and range as the schema checks them (`number > 0`, `integer ≥ 1`, `ppo | grpo | mempo`). */
  type: string;
  /** One-line meaning (the schema's description). */
  meaning: string;
  /** What leaving it out means, for an optional field. */
  unset?: string;
  /** Its value in each preset (undefined where the preset leaves it out). */
  presets: Record<string, unknown>;
}

type JsonSchema = {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  pattern?: string;
  minLength?: number;
};

const SAFE = Number.MAX_SAFE_INTEGER;

function typeText(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(typeText).join(" or ");
  if (s.enum) return s.enum.join(" | ");
  if (s.type === "array") return `list of ${typeText(s.items ?? {})}${s.minItems ? " (non-empty)" : ""}`;
  if (s.type === "integer" || s.type === "number") {
    const lo = s.exclusiveMinimum !== undefined
      ? `> ${s.exclusiveMinimum}`
      : s.minimum !== undefined && s.minimum > -SAFE
      ? `≥ ${s.minimum}`
      : "";
    const hi = s.maximum !== undefined && s.maximum < SAFE ? s.maximum : undefined;
    if (hi !== undefined && s.minimum !== undefined) return `${s.type} in [${s.minimum}, ${hi}]`;
    return [s.type, lo].filter(Boolean).join(" ");
  }
  if (s.type === "string" && s.pattern) return "string of letters, digits, '.', '_', '-'";
  return s.type ?? "any";
}

function leaves(schema: z.ZodType, prefix: string): { path: string; schema: z.ZodType }[] {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() as z.ZodType : schema;
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([k, v]) =>
      leaves(v, prefix ? `${prefix}.${k}` : k)
    );
  }
  return [{ path: prefix, schema }];
}

/**
 * Every leaf field of the experiment config, in schema order, with its type,
 * meaning, what leaving it out means and its value in each preset.
 *
 * Source: cleanrl's CLI generated from its documented `Args` dataclass (tyro); zod's JSON Schema export.
 *
 * @returns The fields.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { configFields } from "./config_help.ts";
 *
 * const lr = configFields().find((f) => f.path === "rl.lr")!;
 * assert.equal(lr.type, "number > 0");
 * assert.equal(lr.meaning, "Policy learning rate (constant).");
 * assert.deepEqual(lr.presets, { default: 5e-5, quick: 1e-4 });
 * ```
 */
export function configFields(): ConfigField[] {
  return leaves(EXPERIMENT_CONFIG_SCHEMA, "").map(({ path, schema }) => {
    const meta = (schema.meta() ?? {}) as { description?: string; unset?: string };
    const json = z.toJSONSchema(schema instanceof z.ZodOptional ? schema.unwrap() as z.ZodType : schema, {
      unrepresentable: "any",
    }) as JsonSchema;
    return {
      path,
      type: typeText(json),
      meaning: meta.description ?? schema.description ?? "",
      ...(meta.unset === undefined ? {} : { unset: meta.unset }),
      presets: Object.fromEntries(Object.entries(PRESETS).map(([name, p]) => [name, valueAt(p, path)])),
    };
  });
}

const show = (v: unknown) => (typeof v === "number" ? String(v) : JSON.stringify(v));

/**
 * The text of `deno task train --help-config`: one entry per field, its path,
 * type, value in the `default` preset (and in the others where they differ,
 * or what leaving it out means) and its meaning.
 *
 * Source: cleanrl's `--help` generated from documented arguments.
 *
 * @returns The help text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { configHelp } from "./config_help.ts";
 *
 * assert.match(configHelp(), /\n {2}rl\.lr {2}number > 0 {2}default 0\.00005 \(quick 0\.0001\)\n {6}Policy learning rate/);
 * ```
 */
export function configHelp(): string {
  const lines = [
    "Config fields of deno task train. A --config FILE holds any of them as JSON, section by section",
    '(`{"rl": {"lr": 1e-4}}` changes rl.lr and keeps the rest of rl); unknown fields are refused.',
    "Each entry: field, type, its value in the default preset (and in the other presets where it differs), meaning.",
  ];
  let section: string | undefined;
  for (const f of configFields()) {
    const top = f.path.includes(".") ? f.path.split(".")[0]! : "";
    if (top !== section) {
      section = top;
      const described = (EXPERIMENT_CONFIG_SCHEMA.shape as Record<string, z.ZodType>)[top]?.description;
      lines.push("", top === "" ? "top level:" : `${top}: ${described ?? ""}`);
    }
    const { default: base, ...others } = f.presets;
    const value = base === undefined ? `unset = ${f.unset ?? "not used"}` : `default ${show(base)}`;
    const differ = Object.entries(others).filter(([, v]) => JSON.stringify(v) !== JSON.stringify(base))
      .map(([name, v]) => `${name} ${v === undefined ? "unset" : show(v)}`);
    const unsetNote = f.unset !== undefined && base !== undefined ? `; unset = ${f.unset}` : "";
    lines.push(
      `  ${f.path}  ${f.type}  ${value}${differ.length ? ` (${differ.join(", ")})` : ""}${unsetNote}`,
      `      ${f.meaning}`,
    );
  }
  return lines.join("\n") + "\n";
}

import assert from "node:assert/strict";
import { configFields, configHelp } from "../../lib/config/config_help.ts";
import { PRESETS } from "../../lib/config/experiment.ts";

/** Dotted paths of every leaf of a preset (lists and scalars are leaves). */
function presetLeaves(x: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(x).flatMap(([k, v]) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? presetLeaves(v as Record<string, unknown>, `${prefix}${k}.`)
      : [`${prefix}${k}`]
  );
}

Deno.test("configFields(): every field of every preset is documented, with a type, a meaning and, if optional, what unset means", () => {
  const fields = configFields();
  const paths = new Set(fields.map((f) => f.path));
  assert.equal(paths.size, fields.length, "each field once");
  for (const preset of Object.values(PRESETS)) {
    for (const p of presetLeaves(preset as unknown as Record<string, unknown>)) assert.ok(paths.has(p), p);
  }
  for (const f of fields) {
    assert.ok(f.meaning.length > 3, `${f.path}: no meaning`);
    assert.ok(!/any$/.test(f.type), `${f.path}: type ${f.type}`);
    if (f.presets.default === undefined || f.presets.quick === undefined) assert.ok(f.unset, `${f.path}: no unset`);
  }
  const byPath = new Map(fields.map((f) => [f.path, f]));
  assert.equal(byPath.get("rl.groupSize")!.type, "integer ≥ 1");
  assert.equal(byPath.get("rl.clipLow")!.type, "number in [0, 0.999]");
  assert.equal(byPath.get("rl.algorithms")!.type, "list of ppo | grpo | mempo");
  assert.equal(byPath.get("data.trainObjectives")!.type, "integer ≥ 1 or list of integer ≥ 1 (non-empty)");
  assert.equal(byPath.get("rl.memCredit")!.unset, "mempo");
  assert.deepEqual(byPath.get("data.sizes.people")!.presets, {
    default: undefined,
    quick: 8,
  });
  assert.deepEqual(byPath.get("sft.drillFrom")!.presets, {
    default: 3900,
    quick: undefined,
  });
});

Deno.test("configHelp(): one entry per field, grouped by section, values of every preset", () => {
  const text = configHelp();
  const entries = text.split("\n").filter((l) => /^ {2}\S/.test(l));
  assert.equal(entries.length, configFields().length);
  assert.match(text, /\nrl: RL, shared by PPO, GRPO and MemPO/);
  assert.match(text, /\n {2}data\.sizes\.people {2}integer ≥ 1 {2}unset = 100 \(quick 8\)\n {6}People\.\n/);
  assert.match(text, /\n {2}sft\.steps {2}integer ≥ 0 {2}default 5200 \(quick 100\)\n/);
  assert.match(text, /\n {2}rl\.memThreshold {2}number in \[0, 0\.999999\] {2}default 0\.5; unset = every token\n/);
});

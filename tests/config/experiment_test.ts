import assert from "node:assert/strict";
import { PRESETS, resolveConfig, validateConfig } from "../../lib/config/experiment.ts";

Deno.test("resolveConfig(): presets, nested overrides, unknown fields and bad values refused", () => {
  assert.equal(resolveConfig("default").model, "small");
  assert.equal(resolveConfig("quick").preset, "quick");
  const c = resolveConfig("quick", { rl: { algorithms: ["ppo"], steps: 3 }, seed: 4 });
  assert.deepEqual(c.rl.algorithms, ["ppo"]);
  assert.equal(c.rl.groupSize, PRESETS.quick.rl.groupSize, "other fields of the section kept");
  assert.equal(c.seed, 4);
  assert.equal(c.rl.seed, undefined, "RL follows the experiment seed unless told");
  assert.equal(resolveConfig("quick", { rl: { seed: 7 } }).rl.seed, 7);
  assert.throws(
    () => resolveConfig("quick", { rl: { seed: 1.5 } }),
    /rl.seed must be an integer ≥ 0, current value is 1.5/,
  );
  assert.throws(() => resolveConfig("huge"), /preset must be one of default, quick/);
  assert.throws(() => resolveConfig("quick", { rl: { lr: -0.1 } }), /rl.lr must be > 0, current value is -0.1/);
  assert.throws(() => resolveConfig("quick", { rl: { groupSize: 0 } }), /rl.groupSize must be an integer ≥ 1/);
  assert.throws(
    () => resolveConfig("quick", { rl: { algorithms: ["dpo" as "ppo"] } }),
    /rl.algorithms\[0\] must be one of ppo, grpo, mempo/,
  );
  assert.throws(() => resolveConfig("quick", { backend: "metal" as "wasm" }), /backend must be one of wasm/);
  assert.throws(() => resolveConfig("quick", { rl: { bogus: 1 } as never }), /unknown field rl.bogus/);
  assert.throws(
    () => resolveConfig("quick", { rl: { memCloseTag: "no" as never } }),
    /rl.memCloseTag must be true or false, current value is "no"/,
  );
  assert.equal(resolveConfig("quick", { rl: { memCloseTag: false } }).rl.memCloseTag, false);
  assert.throws(
    () => resolveConfig("quick", { rl: { memPool: "episode" as never } }),
    /rl.memPool must be one of question, turn, current value is "episode"/,
  );
  assert.throws(
    () => resolveConfig("quick", { rl: { memSpanWeight: "length" as never } }),
    /rl.memSpanWeight must be one of token, span, current value is "length"/,
  );
  assert.equal(resolveConfig("quick", { rl: { memSpanWeight: "span" } }).rl.memSpanWeight, "span");
  assert.throws(
    () => resolveConfig("quick", { rl: { memCredit: "gated" as never } }),
    /rl.memCredit must be one of mempo, infomem, current value is "gated"/,
  );
  assert.equal(resolveConfig("quick", { rl: { memCredit: "infomem" } }).rl.memCredit, "infomem");
  assert.equal(resolveConfig("default").rl.memCredit, undefined, "MemPO's own credit stays the default");
  assert.throws(
    () => resolveConfig("quick", { sft: { inductionNoise: 2.5 } }),
    /sft.inductionNoise must be an integer ≥ 0, current value is 2.5/,
  );
  assert.equal(resolveConfig("default", { sft: { inductionNoise: 32 } }).sft.inductionNoise, 32);
  assert.throws(
    () => resolveConfig("quick", { data: { trainOrder: "random" as never } }),
    /data.trainOrder must be one of marker, shuffled, current value is "random"/,
  );
  assert.throws(
    () => resolveConfig("quick", { rl: { memCoverage: 1 as never } }),
    /rl.memCoverage must be true or false, current value is 1/,
  );
  assert.throws(
    () => resolveConfig("quick", { rl: { worlds: "aux" as never } }),
    /rl.worlds must be one of main, all, current value is "aux"/,
  );
  assert.throws(() => resolveConfig("quick", { nonsense: 1 } as never), /unknown field "nonsense"/);
  assert.throws(
    () => resolveConfig("quick", { eval: { questions: 99 } }),
    /eval.questions \(99\) must be ≤ data.testCount/,
  );
  assert.throws(() => validateConfig({ ...PRESETS.quick, name: "a b" }), /name must be letters/);
  assert.deepEqual(resolveConfig("quick", { data: { auxObjectives: [1, 3] } }).data.auxObjectives, [1, 3]);
  assert.throws(
    () => resolveConfig("quick", { data: { auxObjectives: [1, 0] } }),
    /data.auxObjectives\[1\] must be an integer ≥ 1, current value is 0/,
  );
  assert.throws(
    () => resolveConfig("quick", { data: { auxObjectives: [] } }),
    /data.auxObjectives must be a non-empty list/,
  );
  assert.throws(
    () => resolveConfig("quick", { data: { trainObjectives: 0 } }),
    /data.trainObjectives must be an integer ≥ 1/,
  );
  assert.deepEqual(resolveConfig("quick", { data: { trainObjectives: [1, 2] } }).data.trainObjectives, [1, 2]);
  assert.throws(
    () => resolveConfig("quick", { data: { trainObjectives: [2, 1.5] } }),
    /data.trainObjectives\[1\] must be an integer ≥ 1, current value is 1.5/,
  );
  assert.equal(resolveConfig("default").data.trainMarkers, undefined);
  assert.equal(resolveConfig("quick", { data: { trainMarkers: 3 } }).data.trainMarkers, 3);
  assert.throws(
    () => resolveConfig("default", { data: { trainMarkers: 3 } }),
    /data.trainMarkers must be 0 or ≥ the most training objectives \(4\), current value is 3/,
  );
  assert.throws(
    () => resolveConfig("quick", { data: { trainMarkers: -1 } }),
    /data.trainMarkers must be an integer ≥ 0, current value is -1/,
  );
  assert.notEqual(resolveConfig("quick"), PRESETS.quick, "a copy, never the frozen preset");
});

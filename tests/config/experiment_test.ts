import assert from "node:assert/strict";
import {
  DEFAULT_JOIN_MAX,
  DEFAULT_TEACHER_MEMORY,
  mergeSections,
  PRESETS,
  resolveConfig,
  teacherMemory,
  validateConfig,
  valueAt,
} from "../../lib/config/experiment.ts";
import { configFields } from "../../lib/config/config_help.ts";
import { UsageError } from "../../lib/errors.ts";
import { generateWorld, worldSizes } from "../../lib/env/world.ts";
import { buildQaSplits, testSubjectCount } from "../../lib/env/questions.ts";
import { createTeacher, type MemoryFormat } from "../../lib/env/teacher.ts";
import { buildTokenizer } from "../../lib/text/tokenizer.ts";
import { sftDemoOptions } from "../../lib/train/demos.ts";

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
  assert.throws(() => resolveConfig("huge"), /preset must be one of default, quick, current value is "huge"/);
  assert.throws(() => resolveConfig("quick", { rl: { lr: -0.1 } }), /rl.lr must be > 0, current value is -0.1/);
  assert.throws(() => resolveConfig("quick", { rl: { groupSize: 0 } }), /rl.groupSize must be an integer ≥ 1/);
  assert.throws(
    () => resolveConfig("quick", { rl: { algorithms: ["dpo" as "ppo"] } }),
    /rl.algorithms\[0\] must be one of ppo, grpo, mempo/,
  );
  assert.throws(() => resolveConfig("quick", { backend: "metal" as "wasm" }), /backend must be one of wasm/);
  assert.throws(() => resolveConfig("quick", { rl: { bogus: 1 } as never }), /unknown field rl.bogus/);
  assert.throws(
    () => resolveConfig("quick", { rl: { memCredit: "gated" as never } }),
    /rl.memCredit must be one of mempo, infomem, current value is "gated"/,
  );
  assert.equal(resolveConfig("quick", { rl: { memCredit: "infomem" } }).rl.memCredit, "infomem");
  assert.equal(resolveConfig("default").rl.memCredit, undefined, "MemPO's own credit stays the default");
  assert.throws(() => resolveConfig("quick", { nonsense: 1 } as never), /Invalid config: unknown field nonsense$/);
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
  assert.notEqual(resolveConfig("quick"), PRESETS.quick, "a copy, never the frozen preset");
});

Deno.test("validateConfig(): every depth, type and range refused with the field and the value as given", () => {
  const q = PRESETS.quick;
  const cases: [unknown, RegExp][] = [
    // unknown keys at every depth (the first named even when other fields are bad too)
    [
      { ...q, data: { ...q.data, sizes: { ...q.data.sizes, cats: 2 } } },
      /^Invalid config: unknown field data\.sizes\.cats$/,
    ],
    [{ ...q, rl: { ...q.rl, lr: -1, lrr: 1 } }, /^Invalid config: unknown field rl\.lrr$/],
    [{ ...q, "two words": 1 }, /^Invalid config: unknown field \["two words"\]$/],
    // sections that are not objects, and a config that is not one
    [{ ...q, rl: null }, /^Invalid config: rl must be an object of fields, current value is null$/],
    [{ ...q, sft: "fast" }, /^Invalid config: sft must be an object of fields, current value is "fast"$/],
    [{ ...q, eval: [4] }, /^Invalid config: eval must be an object of fields, current value is \[4\]$/],
    [
      { ...q, data: { ...q.data, sizes: 3 } },
      /^Invalid config: data\.sizes must be an object of fields, current value is 3$/,
    ],
    [[1, 2], /^Invalid config: the config must be an object of fields, current value is \[1, 2\]$/],
    [null, /^Invalid config: the config must be an object of fields, current value is null$/],
    // values shown as given: JSON's 1e999 is Infinity, not null
    [{ ...q, rl: { ...q.rl, lr: 1e999 } }, /^Invalid config: rl\.lr must be > 0, current value is Infinity$/],
    [{ ...q, sft: { ...q.sft, steps: -Infinity } }, /sft\.steps must be an integer ≥ 0, current value is -Infinity$/],
    [{ ...q, rl: { ...q.rl, klCoef: "0.1" } }, /rl\.klCoef must be in \[0, 10\], current value is "0\.1"$/],
    // wrong types of paths and names
    [{ ...q, dataDir: 7 }, /^Invalid config: dataDir must be a path \(a string\), current value is 7$/],
    [{ ...q, dataDir: "" }, /dataDir must be a non-empty path, current value is ""$/],
    [{ ...q, name: ["a"] }, /name must be letters, digits, '\.', '_' or '-', current value is \["a"\]$/],
    // lists and unions
    [
      { ...q, data: { ...q.data, testObjectives: [1, "2"] } },
      /data\.testObjectives\[1\] must be an integer ≥ 1, current value is "2"$/,
    ],
    [
      { ...q, data: { ...q.data, trainObjectives: "2" } },
      /data\.trainObjectives must be an integer ≥ 1 or a non-empty list of them, current value is "2"$/,
    ],
    [{ ...q, rl: { ...q.rl, algorithms: "grpo" } }, /rl\.algorithms must be a list, current value is "grpo"$/],
    // a missing required field
    [
      { ...q, eval: { questions: 1, maxTurns: 2 } },
      /^Invalid config: eval\.maxTurnTokens is missing \(it must be an integer ≥ 8\)$/,
    ],
    // world sizes, checked before anything is generated
    [
      { ...q, data: { ...q.data, sizes: { countries: 5, cities: 4 } } },
      /data\.sizes: cities \(4\) must be ≥ countries \(5\)/,
    ],
    [
      { ...q, data: { ...q.data, sizes: { ...q.data.sizes, people: 0 } } },
      /data\.sizes\.people must be an integer ≥ 1, current value is 0$/,
    ],
    [
      { ...q, data: { ...q.data, testObjectives: [1, 8] } },
      /data\.sizes give 6 test subjects, too few for 8-objective questions/,
    ],
  ];
  for (const [config, message] of cases) {
    assert.throws(() => validateConfig(config), (e: Error) => {
      assert.ok(e instanceof UsageError, `${e.name}: ${e.message}`);
      assert.match(e.message, message);
      return true;
    });
  }
  assert.equal(validateConfig(structuredClone(q)).rl.lr, q.rl.lr);
});

Deno.test("validateConfig() returns its input: key order and absent optional fields as they were", () => {
  const c = structuredClone(PRESETS.quick);
  assert.equal(validateConfig(c), c);
  assert.equal(JSON.stringify(validateConfig(c)), JSON.stringify(PRESETS.quick));
  assert.equal("memCredit" in c.rl, false);
});

Deno.test("resolveConfig(): overrides that are not an object are refused by name", () => {
  assert.throws(
    () => resolveConfig("quick", [1] as never),
    /the overrides must be an object of fields, current value is \[1\]/,
  );
  assert.throws(
    () => resolveConfig("quick", { rl: null } as never),
    /rl must be an object of fields, current value is null/,
  );
});

Deno.test("presetDataDir(): data/<preset>, one folder per preset (deno task data and deno task train agree)", async () => {
  const { presetDataDir } = await import("../../lib/config/experiment.ts");
  assert.deepEqual(Object.keys(PRESETS).map(presetDataDir), Object.keys(PRESETS).map((p) => `data/${p}`));
  assert.notEqual(presetDataDir("quick"), presetDataDir("default"));
  // the tools take their default from it, not from a path of their own
  for (const tool of ["train.ts", "data.ts"]) {
    const text = await Deno.readTextFile(new URL(`../../tools/${tool}`, import.meta.url));
    assert.match(text, /presetDataDir\(config\.preset\)/, tool);
    assert.doesNotMatch(text, /`data\/\$\{/, tool);
  }
});

Deno.test("resolveConfig(): the retired presets and fields are refused as unknown", () => {
  for (const preset of ["paper", "short"]) {
    assert.throws(() => resolveConfig(preset), /preset must be one of default, quick, current value is/);
  }
  const retired: [string, Record<string, unknown>][] = [
    ["data.trainMarkers", { data: { trainMarkers: 4 } }],
    ["data.trainOrder", { data: { trainOrder: "shuffled" } }],
    ["data.subjectIndex", { data: { subjectIndex: true } }],
    ["data.markers", { data: { markers: false } }],
    ["data.validFraction", { data: { validFraction: 0.2 } }],
    ["sft.pretrainBatchSize", { sft: { pretrainBatchSize: 16 } }],
    ["sft.inductionLists", { sft: { inductionLists: 0.5 } }],
    ["sft.inductionNoise", { sft: { inductionNoise: 32 } }],
    ["sft.drillKinds", { sft: { drillKinds: ["extract"] } }],
    ["sft.carryShare", { sft: { carryShare: 0.5 } }],
    ["sft.joinMax", { sft: { joinMax: 3 } }],
    ["sft.questionFiller", { sft: { questionFiller: 4 } }],
    ["rl.memCloseTag", { rl: { memCloseTag: false } }],
    ["rl.memPool", { rl: { memPool: "turn" } }],
    ["rl.memCoverage", { rl: { memCoverage: true } }],
    ["rl.memSpanWeight", { rl: { memSpanWeight: "span" } }],
    ["rl.worlds", { rl: { worlds: "all" } }],
    ["rl.filterGroups", { rl: { filterGroups: true } }],
    ["rl.maxGenBatches", { rl: { maxGenBatches: 3 } }],
  ];
  for (const [field, overrides] of retired) {
    assert.throws(() => resolveConfig("quick", overrides as never), new RegExp(`unknown field ${field}$`), field);
  }
  for (const teacherMemory of ["slots", "state", "state-stack", "state-chain-bare"]) {
    assert.throws(
      () => resolveConfig("quick", { sft: { teacherMemory } } as never),
      /sft\.teacherMemory must be one of state-relations, state-relations-bare, current value is/,
    );
  }
});

Deno.test("resolveConfig(): sft.horizons ascend below sft.steps; sft.drillFrom needs a drill and comes before the end", () => {
  const d = resolveConfig("default");
  assert.deepEqual(d.sft.horizons, [1300, 1950, 2600, 3900]);
  assert.equal(d.sft.drillFrom, 3900);
  assert.throws(
    () => resolveConfig("quick", { sft: { horizons: [60, 50] } }),
    /Invalid config: sft\.horizons must ascend, each below sft\.steps \(100\); current value is \[60,50\]$/,
  );
  assert.throws(
    () => resolveConfig("quick", { sft: { horizons: [100] } }),
    /sft\.horizons must ascend, each below sft\.steps \(100\); current value is \[100\]$/,
  );
  assert.throws(
    () => resolveConfig("quick", { sft: { horizons: [0] } }),
    /sft\.horizons\[0\] must be an integer ≥ 1, current value is 0$/,
  );
  assert.throws(
    () => resolveConfig("quick", { sft: { drillFrom: 50 } }),
    /Invalid config: sft\.drillFrom needs sft\.drillMix > 0 .*current values are sft\.drillFrom 50, sft\.drillMix undefined$/,
  );
  assert.throws(
    () => resolveConfig("quick", { sft: { drillMix: 1, drillFrom: 100 } }),
    /Invalid config: sft\.drillFrom must be < sft\.steps \(100\), current value is 100$/,
  );
  assert.equal(resolveConfig("quick", { sft: { drillMix: 1, drillFrom: 99, horizons: [1, 98] } }).sft.drillFrom, 99);
});

Deno.test("resolveConfig(): rl.joinShare needs the question once, turns for its joins and no PPO", () => {
  const qo = {
    data: { questionOnce: true, trainObjectives: [1, 2] },
    rl: { algorithms: ["mempo", "grpo"] as ("mempo" | "grpo")[], joinShare: 0.5, joinMax: 5 },
  };
  assert.equal(resolveConfig("quick", qo).rl.joinShare, 0.5); // 5 + 2 + 1 = quick's 8 turns
  assert.throws(
    () => resolveConfig("quick", { ...qo, rl: { ...qo.rl, joinMax: 6 } }),
    /rl\.joinShare > 0 needs rl\.maxTurns ≥ rl\.joinMax \+ the most objectives of a training question \+ 1 .*6 \+ 2 \+ 1 = 9; current values are rl\.joinShare 0\.5, rl\.maxTurns 8, rl\.joinMax 6, data\.trainObjectives \[1,2\]$/,
  );
  assert.throws( // the default joinMax (7) does not fit 8 turns either
    () => resolveConfig("quick", { ...qo, rl: { ...qo.rl, joinMax: undefined } }),
    /= 10; .*rl\.joinMax unset \(7\)/,
  );
  assert.equal(resolveConfig("quick", { ...qo, rl: { ...qo.rl, joinMax: undefined, maxTurns: 10 } }).rl.maxTurns, 10);
  assert.throws(
    () => resolveConfig("quick", { rl: { joinShare: 0.5 } }),
    /Invalid config: rl\.joinShare > 0 needs data\.questionOnce .*current values are rl\.joinShare 0\.5, data\.questionOnce undefined$/,
  );
  assert.throws(
    () => resolveConfig("quick", { ...qo, rl: { ...qo.rl, algorithms: ["ppo"] } }),
    /rl\.joinShare > 0 needs rl\.algorithms without ppo .*rl\.algorithms \["ppo"\]$/,
  );
  assert.throws(
    () => resolveConfig("quick", { ...qo, rl: { ...qo.rl, joinMax: 0 } }),
    /rl\.joinMax must be an integer ≥ 1/,
  );
});

Deno.test("resolveConfig(): sft.pretrainHorizon is at least the warm-up's steps", () => {
  assert.equal(resolveConfig("quick", { sft: { pretrainHorizon: 750 } }).sft.pretrainHorizon, 750);
  assert.throws(
    () => resolveConfig("quick", { sft: { pretrainSteps: 550, pretrainHorizon: 500 } }),
    /Invalid config: sft\.pretrainHorizon must be ≥ sft\.pretrainSteps \(550\), current value is 500$/,
  );
});

Deno.test("the config's unset texts say what the consumers do when a field is left out", () => {
  const unset = new Map(configFields().map((f) => [f.path, f.unset]));
  const world = generateWorld(3, { distractors: 0 });
  const options = { trainCount: 6, testCount: 2, testObjectives: [1, 3], trainObjectives: 2, seed: 4 };
  // sft.teacherMemory: the state memory with relations, which createTeacher writes when told nothing
  assert.equal(unset.get("sft.teacherMemory"), DEFAULT_TEACHER_MEMORY);
  const { teacherMemory: _, ...sft } = PRESETS.quick.sft;
  assert.equal(teacherMemory({ ...PRESETS.quick, sft }), DEFAULT_TEACHER_MEMORY);
  const split = buildQaSplits(world, options);
  const tok = buildTokenizer(split.train.map((q) => q.question));
  const turns = async (memory?: MemoryFormat) => {
    const request = {
      episode: { id: 0, task: { ...split.train[0]!, groupId: 0 }, turns: [] },
      context: [],
    } as never;
    return await createTeacher(tok, memory === undefined ? {} : { memory }).nextTurns([request], {
      maxNewTokens: 64,
      stopIds: [],
      seed: 0,
    });
  };
  return Promise.all([turns(), turns(DEFAULT_TEACHER_MEMORY), turns("state-relations-bare")]).then(
    ([none, fallback, bare]) => {
      assert.deepEqual(none, fallback);
      assert.notDeepEqual(none, bare);
    },
  );
});

Deno.test("valueAt(), mergeSections(): dotted paths and the section-by-section merge", () => {
  assert.equal(valueAt(PRESETS.default, "rl.memThreshold"), 0.5);
  assert.equal(valueAt(PRESETS.default, "seed"), 0);
  assert.deepEqual(valueAt(PRESETS.default, "data.sizes"), { distractors: 0, lives: 1 });
  assert.equal(valueAt(PRESETS.default, "data.sizes.films"), undefined);
  assert.equal(valueAt(undefined, "rl"), undefined);
  const base = { seed: 1, rl: { lr: 1, steps: 2 }, data: { testObjectives: [1, 2] } };
  const merged = mergeSections(base, { rl: { steps: 5 }, data: { testObjectives: [8] }, seed: undefined, name: "x" });
  // a section merges field by field; a list replaces; undefined leaves the field; new fields are added
  assert.deepEqual(merged, { seed: 1, rl: { lr: 1, steps: 5 }, data: { testObjectives: [8] }, name: "x" });
  assert.deepEqual(base, { seed: 1, rl: { lr: 1, steps: 2 }, data: { testObjectives: [1, 2] } }, "base unchanged");
  // a section over a non-section (or null over a section) replaces it
  assert.deepEqual(mergeSections({ rl: 3 }, { rl: { lr: 1 } }), { rl: { lr: 1 } });
  assert.deepEqual(mergeSections({ rl: { lr: 1 } }, { rl: null }), { rl: null });
  // one level deep: a nested section inside a section is replaced, not merged
  assert.deepEqual(
    mergeSections({ data: { sizes: { films: 4, people: 8 } } }, { data: { sizes: { films: 2 } } }),
    { data: { sizes: { films: 2 } } },
  );
});

Deno.test("worldSizes(), testSubjectCount(): the sizes validateConfig checks a test set against", () => {
  const quick = worldSizes(PRESETS.quick.data.sizes ?? {});
  assert.deepEqual(quick, { countries: 2, cities: 4, people: 8, companies: 4, films: 4, distractors: 0, lives: 0 });
  // round(0.3 n) per questioned type, at least 1: people 8 → 2, companies 4 → 1, films 4 → 1, cities 4 → 1, countries 2 → 1
  assert.equal(testSubjectCount(quick), 6);
  assert.equal(testSubjectCount(worldSizes({})), 2 + 10 + 30 + 12 + 12);
  assert.equal(testSubjectCount(quick, 0.5), 1 + 2 + 4 + 2 + 2);
  assert.throws(() => worldSizes({ countries: 5, cities: 4 }), /cities \(4\) must be ≥ countries \(5\)/);
  // validateConfig refuses a test set with more objectives than test subjects, and accepts one that fits
  assert.throws(
    () => resolveConfig("quick", { data: { testObjectives: [7] } }),
    /data\.sizes give 6 test subjects, too few for 7-objective questions/,
  );
  assert.deepEqual(resolveConfig("quick", { data: { testObjectives: [6] } }).data.testObjectives, [6]);
});

Deno.test("validateConfig(): sft.joinShare needs data.questionOnce, and sftDemoOptions passes the join on", () => {
  const config = resolveConfig("quick", { data: { questionOnce: true }, sft: { joinShare: 0.5 } });
  assert.deepEqual(sftDemoOptions(config, 2048).join, { share: 0.5, max: DEFAULT_JOIN_MAX });
  assert.equal(sftDemoOptions(resolveConfig("quick", { data: { questionOnce: true } }), 2048).join, undefined);
  const bare = resolveConfig("quick", {
    data: { questionOnce: true },
    sft: { teacherMemory: "state-relations-bare", joinShare: 0.5, drillMix: 1 },
  });
  assert.equal(sftDemoOptions(bare, 2048).memory, "state-relations-bare");
  assert.throws(
    () => resolveConfig("quick", { sft: { joinShare: 0.5 } }),
    /Invalid config: sft\.joinShare > 0 needs data\.questionOnce .*current values are sft\.joinShare 0\.5, data\.questionOnce undefined$/,
  );
});

Deno.test("validateConfig(): data.validCount below eval.questions refused by name", () => {
  assert.throws(
    () => resolveConfig("quick", { data: { validCount: 2 }, eval: { questions: 4 } }),
    /eval\.questions \(4\) must be ≤ data\.validCount \(2\) when it is set/,
  );
  assert.equal(resolveConfig("quick", { data: { validCount: 4 }, eval: { questions: 4 } }).data.validCount, 4);
});

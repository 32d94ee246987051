import assert from "node:assert/strict";
import { type Algorithm, resolveConfig } from "../../lib/config/experiment.ts";
import { buildData } from "../../lib/data/build.ts";
import { exportVerl } from "../../lib/export/export_verl.ts";
import {
  mempoJson,
  notCarried,
  renderOverrides,
  VERL_VERSION,
  verlAdvEstimator,
  verlOverrides,
  type VerlSizes,
} from "../../lib/export/verl_config.ts";

const FIXTURE = JSON.parse(
  await Deno.readTextFile(new URL("../_fixtures/verl_v0.7.0_trainer_keys.json", import.meta.url)),
) as { verl_version: string; source: string; commit: string; keys: string[] };
const KEYS = new Set(FIXTURE.keys);
const SIZES: VerlSizes = {
  maxPromptTokens: 60,
  maxToolTokens: 120,
  maxToolChars: 400,
  trainCount: 300,
  valFiles: ["data/test_1obj.parquet"],
};

Deno.test("the key fixture is verl's published trainer config of the version the overrides name", () => {
  assert.equal(FIXTURE.verl_version, VERL_VERSION);
  assert.match(FIXTURE.source, /verl\/blob\/v0\.7\.0\/verl\/trainer\/config\/_generated_ppo_trainer\.yaml$/);
  assert.match(FIXTURE.commit, /^[0-9a-f]{40}$/);
  assert.ok(KEYS.size > 600, `${KEYS.size} keys`);
  for (
    const k of [
      "algorithm.adv_estimator",
      "actor_rollout_ref.rollout.multi_turn.max_assistant_turns",
      "trainer.total_training_steps",
    ]
  ) {
    assert.ok(KEYS.has(k), k);
  }
  assert.ok(!KEYS.has("actor_rollout_ref.actor.vf_coef"));
});

Deno.test("verlOverrides(): every key exists in verl 0.7.0's trainer config, for every algorithm and option set", () => {
  const configs = [
    resolveConfig("quick"),
    resolveConfig("default"),
    resolveConfig("quick", { rl: { klEstimator: "k3", std: "population", epsilon: 1e-4, klCoef: 0 } }),
    resolveConfig("default", { rl: { klEstimator: "k2", memCredit: "infomem", seed: 9 } }),
  ];
  let checked = 0;
  for (const c of configs) {
    for (const a of ["mempo", "grpo", "ppo"] as Algorithm[]) {
      for (const o of verlOverrides(c, a, SIZES)) {
        assert.ok(KEYS.has(o.key), `${o.key} (${a}) is not a key of verl ${VERL_VERSION}'s trainer config`);
        assert.ok(o.from.length > 0, o.key);
        checked += 1;
      }
    }
  }
  assert.ok(checked > 150);
});

Deno.test("verlOverrides() carries the run's hyperparameters (hand-checked against the quick preset)", () => {
  const c = resolveConfig("quick", { rl: { klEstimator: "k2" } });
  const get = (a: Algorithm) => Object.fromEntries(verlOverrides(c, a, SIZES).map((o) => [o.key, o.value]));
  const m = get("mempo");
  assert.equal(m["algorithm.adv_estimator"], "mempo");
  assert.equal(m["data.train_batch_size"], 4); // rl.questionsPerStep
  assert.equal(m["actor_rollout_ref.rollout.n"], 4); // rl.groupSize
  assert.equal(m["actor_rollout_ref.actor.optim.lr"], 1e-4);
  assert.equal(m["actor_rollout_ref.actor.clip_ratio_low"], 0.2);
  assert.equal(m["actor_rollout_ref.actor.kl_loss_type"], "mse"); // the package's k2 is verl's mse
  assert.equal(m["actor_rollout_ref.actor.kl_loss_coef"], 0.001);
  assert.equal(m["actor_rollout_ref.actor.ppo_mini_batch_size"], 4); // 16 turn sequences ÷ G 4
  assert.equal(m["actor_rollout_ref.rollout.multi_turn.max_assistant_turns"], 8);
  assert.equal(m["actor_rollout_ref.rollout.multi_turn.max_tool_response_length"], 400); // characters, as verl counts
  // 8 turns × (48 + 120) = 1344 ≤ 2048 − 60
  assert.equal(m["data.max_response_length"], 1344);
  assert.equal(m["trainer.total_training_steps"], 8);
  assert.equal(m["trainer.total_epochs"], 1); // 8 steps × 4 questions ≤ 300
  assert.equal(get("grpo")["algorithm.adv_estimator"], "grpo");
  assert.equal(get("ppo")["critic.cliprange_value"], 0.5);
  assert.equal(verlAdvEstimator(resolveConfig("quick", { rl: { epsilon: 1e-4 } }), "grpo"), "mempo_grpo");
  assert.throws(
    () => verlAdvEstimator(c, "dpo" as Algorithm),
    /must be one of ppo, grpo, mempo, current value is "dpo"/,
  );
  const k3 = verlOverrides(resolveConfig("quick", { rl: { klEstimator: "k3" } }), "grpo", SIZES)
    .find((o) => o.key === "actor_rollout_ref.actor.kl_loss_type")!;
  assert.match(k3.from, /unclamped here/);
  assert.throws(
    () => verlOverrides(c, "grpo", { ...SIZES, maxToolTokens: 0 }),
    /sizes\.maxToolTokens must be a positive integer/,
  );
  assert.ok(notCarried(c, "ppo").some((l) => l.startsWith("rl.vfCoef 0.5")));
});

Deno.test("renderOverrides(): a comment naming the source above each key=value; one-word values only", () => {
  const text = renderOverrides([{ key: "a.b", value: 0.5, from: "rl.x" }, { key: "c", value: true, from: "y" }], ["z"]);
  assert.equal(text, "# rl.x\na.b=0.5\n# y\nc=true\n#\n# not carried to verl:\n#   z\n");
  assert.throws(() => renderOverrides([{ key: "a", value: "two words", from: "x" }], []), /must be one word/);
});

Deno.test("every key of an export's config/ exists in verl 0.7.0's trainer config; mempo.json has mempo_verl's fields", async () => {
  const data = await Deno.makeTempDir();
  await buildData(data, 1, { trainCount: 5, testCount: 2, testObjectives: [1, 2] });
  const out = await Deno.makeTempDir();
  await exportVerl({ data, out, preset: "quick" });
  let lines = 0;
  for (const a of ["mempo", "grpo", "ppo"]) {
    const text = await Deno.readTextFile(`${out}/config/${a}.overrides`);
    const rows = text.split("\n");
    rows.forEach((line, i) => {
      if (line === "" || line.startsWith("#")) return;
      const key = line.slice(0, line.indexOf("="));
      assert.ok(KEYS.has(key), `config/${a}.overrides: ${key} is not a key of verl ${VERL_VERSION}`);
      assert.ok(rows[i - 1]!.startsWith("# "), `config/${a}.overrides: ${key} has no comment naming its source`);
      lines += 1;
    });
  }
  assert.ok(lines > 100);
  const options = await Deno.readTextFile(new URL("../../python/mempo_verl/options.py", import.meta.url));
  const fields = [...options.match(/FIELDS = \{([\s\S]*?)\n\}/)![1]!.matchAll(/^\s+"(\w+)":/gm)].map((m) => m[1])
    .sort();
  const json = JSON.parse(await Deno.readTextFile(`${out}/config/mempo.json`));
  assert.deepEqual(Object.keys(json).filter((k) => !k.startsWith("_")).sort(), fields);
  assert.deepEqual(json, mempoJson(resolveConfig("quick")));
  assert.equal(json.variant, "mempo");
  assert.equal(mempoJson(resolveConfig("quick", { rl: { memCredit: "infomem" } })).variant, "infomem");
  await Deno.remove(data, { recursive: true });
  await Deno.remove(out, { recursive: true });
});

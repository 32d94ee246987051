/**
 * A run's hyperparameters as verl trainer overrides (Hydra `key=value`, each
 * with the package field it comes from), and MemPO's own settings as the
 * `mempo.json` that the Python package reads.
 *
 * @module
 */
import { type Algorithm, ALGORITHMS, type ExperimentConfig } from "../config/experiment.ts";
import type { KlEstimator } from "../loss/kl.ts";
import { modelPreset } from "../model/config.ts";
import { mempoOptions } from "../train/rl_trainer.ts";

/** The verl release whose trainer config the overrides are written for. */
export const VERL_VERSION = "0.7.0";

/** One override: `key=value`, and where its value comes from. */
export interface VerlOverride {
  /** Dotted key of verl's trainer config (`ppo_trainer.yaml`). */
  key: string;
  /** The value as Hydra reads it. */
  value: string | number | boolean;
  /** The package field (or fact) it comes from. */
  from: string;
}

/** Sizes measured on the exported data (token counts under the exported tokenizer). */
export interface VerlSizes {
  /** The longest prompt: system + question + the forced `<|assistant|> <mem>`. */
  maxPromptTokens: number;
  /** The longest tool message (`<|end|> <|user|> <information>…</information> <|end|> <|assistant|> <mem>`). */
  maxToolTokens: number;
  /** The longest `<information>` text in characters (verl truncates tool text by characters). */
  maxToolChars: number;
  /** Training questions. */
  trainCount: number;
  /** Test set files, relative to the export folder (`data/test_1obj.parquet`, …). */
  valFiles: string[];
}

const ROOT = "${oc.env:MEMPO_EXPORT}";

/** The package's KL estimators under verl's names (`k3`, unclamped here, has no verl twin). */
const KL_TYPES: Record<KlEstimator, string> = {
  k1: "kl",
  abs: "abs",
  k2: "mse",
  k3: "low_var_kl",
  low_var_kl: "low_var_kl",
};

/**
 * verl's advantage estimator for an algorithm of this package.
 *
 * ```text
 * mempo → "mempo" (registered by mempo_verl)
 * grpo  → "grpo" when the normaliser is verl's (Bessel std, ε = 1e-6), else "mempo_grpo" (mempo_verl's, rl.std/rl.epsilon)
 * ppo   → "gae"
 * ```
 *
 * Source: verl `core_algos.py` `AdvantageEstimator` and `compute_grpo_outcome_advantage` (ε = 1e-6, `torch.std`).
 *
 * @param config The experiment.
 * @param algorithm The algorithm exported.
 * @returns The estimator name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { verlAdvEstimator } from "./verl_config.ts";
 *
 * assert.equal(verlAdvEstimator(resolveConfig("quick"), "grpo"), "grpo");
 * assert.equal(verlAdvEstimator(resolveConfig("quick", { rl: { std: "population" } }), "grpo"), "mempo_grpo");
 * ```
 */
export function verlAdvEstimator(config: ExperimentConfig, algorithm: Algorithm): string {
  if (algorithm === "mempo") return "mempo";
  if (algorithm === "ppo") return "gae";
  if (algorithm === "grpo") return config.rl.std === "bessel" && config.rl.epsilon === 1e-6 ? "grpo" : "mempo_grpo";
  throw new RangeError(
    `Cannot map the algorithm to verl: it must be one of ${ALGORITHMS.join(", ")}, current value is ${
      JSON.stringify(algorithm)
    }`,
  );
}

/**
 * The verl overrides of one algorithm of a run. Paths are written under
 * `${oc.env:MEMPO_EXPORT}` (the export folder, set by `config/run.sh`).
 *
 * ```text
 * batch: data.train_batch_size ← rl.questionsPerStep, rollout.n ← rl.groupSize, ppo_mini_batch_size ← ⌈miniBatchSize / G⌉
 * loss:  clip_ratio_low/high ← rl.clipLow/High, clip_ratio_c 3 (dual clip), token-mean, kl_loss ← rl.klCoef, rl.klEstimator
 * optim: lr ← rl.lr (constant), weight_decay 0, grad_clip ← rl.maxGradNorm
 * turns: multi_turn.max_assistant_turns ← rl.maxTurns, tool parser mempo_search, response budget from the data
 * ```
 *
 * Source: verl v0.7.0 `_generated_ppo_trainer.yaml` (every key exists there: tests/export/verl_config_test.ts).
 *
 * @param config The run's experiment config.
 * @param algorithm The algorithm to run on verl.
 * @param sizes Token counts of the exported data.
 * @returns The overrides, in the order written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { verlOverrides } from "./verl_config.ts";
 *
 * const o = verlOverrides(resolveConfig("quick"), "mempo", { maxPromptTokens: 40, maxToolTokens: 90, maxToolChars: 300, trainCount: 300, valFiles: ["data/test_1obj.parquet"] });
 * assert.equal(o.find((x) => x.key === "algorithm.adv_estimator")!.value, "mempo");
 * assert.equal(o.find((x) => x.key === "actor_rollout_ref.rollout.n")!.value, 4);
 * ```
 */
export function verlOverrides(config: ExperimentConfig, algorithm: Algorithm, sizes: VerlSizes): VerlOverride[] {
  const rl = config.rl;
  const counts = {
    maxPromptTokens: sizes.maxPromptTokens,
    maxToolTokens: sizes.maxToolTokens,
    maxToolChars: sizes.maxToolChars,
  };
  for (const [k, v] of Object.entries(counts)) {
    if (!Number.isInteger(v) || v < 1) {
      throw new RangeError(`Cannot write verl overrides: sizes.${k} must be a positive integer, current value is ${v}`);
    }
  }
  const maxPositions = modelPreset(config.model, 1).maxPositions;
  const response = Math.min(
    rl.maxTurns * (rl.maxTurnTokens + sizes.maxToolTokens),
    maxPositions - sizes.maxPromptTokens,
  );
  const epochs = Math.max(1, Math.ceil((rl.steps * rl.questionsPerStep) / Math.max(1, sizes.trainCount)));
  const a = "actor_rollout_ref.actor";
  const r = "actor_rollout_ref.rollout";
  const o: VerlOverride[] = [
    { key: "algorithm.adv_estimator", value: verlAdvEstimator(config, algorithm), from: `rl.algorithms: ${algorithm}` },
    { key: "algorithm.norm_adv_by_std_in_grpo", value: true, from: "grpoAdvantages normByStd (default true)" },
    { key: "algorithm.use_kl_in_reward", value: false, from: "the KL to the reference is a loss term (policyUpdate)" },
    { key: "data.train_files", value: `${ROOT}/data/train.parquet`, from: "export data/train.parquet" },
    {
      key: "data.val_files",
      value: `[${sizes.valFiles.map((f) => `${ROOT}/${f}`).join(",")}]`,
      from: "export data/test_*obj.parquet",
    },
    { key: "data.train_batch_size", value: rl.questionsPerStep, from: "rl.questionsPerStep" },
    { key: "data.max_prompt_length", value: sizes.maxPromptTokens, from: "longest exported prompt (tokens)" },
    {
      key: "data.max_response_length",
      value: response,
      from: `rl.maxTurns × (rl.maxTurnTokens + longest tool message), at most model positions ${maxPositions} − prompt`,
    },
    { key: "data.return_raw_chat", value: true, from: "the agent loop renders the chat itself" },
    { key: "data.seed", value: rl.seed ?? config.seed, from: rl.seed === undefined ? "seed" : "rl.seed" },
    { key: "actor_rollout_ref.model.path", value: `${ROOT}/model`, from: "export model/ (the run's policy)" },
    { key: `${a}.optim.lr`, value: rl.lr, from: "rl.lr" },
    { key: `${a}.optim.lr_scheduler_type`, value: "constant", from: "rl.lr is constant" },
    { key: `${a}.optim.weight_decay`, value: 0, from: "RL AdamW: weightDecay 0" },
    { key: `${a}.grad_clip`, value: rl.maxGradNorm, from: "rl.maxGradNorm" },
    { key: `${a}.clip_ratio_low`, value: rl.clipLow, from: "rl.clipLow" },
    { key: `${a}.clip_ratio_high`, value: rl.clipHigh, from: "rl.clipHigh" },
    { key: `${a}.clip_ratio_c`, value: 3, from: "ppoClipLoss dualClip (default 3)" },
    { key: `${a}.loss_agg_mode`, value: "token-mean", from: "policyUpdate aggMode token-mean" },
    { key: `${a}.ppo_epochs`, value: rl.ppoEpochs, from: "rl.ppoEpochs" },
    {
      key: `${a}.ppo_mini_batch_size`,
      value: Math.max(1, Math.ceil(rl.miniBatchSize / rl.groupSize)),
      from: "rl.miniBatchSize ÷ rl.groupSize (verl counts prompts; a row is a whole trajectory, not a turn)",
    },
    { key: `${a}.use_kl_loss`, value: rl.klCoef > 0, from: "rl.klCoef > 0" },
    { key: `${a}.kl_loss_coef`, value: rl.klCoef, from: "rl.klCoef" },
    {
      key: `${a}.kl_loss_type`,
      value: KL_TYPES[rl.klEstimator],
      from: rl.klEstimator === "k3"
        ? "rl.klEstimator k3 (unclamped here; verl's low_var_kl clamps Δ to ±20 and the result to ±10)"
        : `rl.klEstimator ${rl.klEstimator}`,
    },
    { key: `${a}.entropy_coeff`, value: 0, from: "no entropy bonus (policyUpdate)" },
    { key: `${r}.name`, value: "vllm", from: "(rollout engine; sglang works too)" },
    { key: `${r}.tensor_model_parallel_size`, value: 1, from: "(the exported model fits one GPU)" },
    { key: `${r}.n`, value: rl.groupSize, from: "rl.groupSize" },
    { key: `${r}.temperature`, value: rl.temperature, from: "rl.temperature" },
    { key: `${r}.top_p`, value: 1, from: "(sampling without nucleus cut, as the package's sampler in RL)" },
    { key: `${r}.multi_turn.enable`, value: true, from: "multi-turn agent (search, then answer)" },
    { key: `${r}.multi_turn.max_assistant_turns`, value: rl.maxTurns, from: "rl.maxTurns" },
    {
      key: `${r}.multi_turn.max_tool_response_length`,
      value: sizes.maxToolChars,
      from: "longest <information> text, in characters (verl truncates a longer tool text)",
    },
    { key: `${r}.multi_turn.format`, value: "mempo_search", from: "mempo_verl's tool parser for <search>…</search>" },
    { key: `${r}.multi_turn.tool_config_path`, value: `${ROOT}/config/tool_config.yaml`, from: "export config/" },
    { key: `${r}.agent.default_agent_loop`, value: "tool_agent", from: "verl's multi-turn agent loop (full context)" },
    { key: "custom_reward_function.path", value: `${ROOT}/reward_fn.py`, from: "mempo_verl.compute_score" },
    { key: "custom_reward_function.name", value: "compute_score", from: "mempo_verl.compute_score" },
    { key: "trainer.total_training_steps", value: rl.steps, from: "rl.steps" },
    { key: "trainer.total_epochs", value: epochs, from: "⌈rl.steps × rl.questionsPerStep ÷ training questions⌉" },
    { key: "trainer.save_freq", value: rl.checkpointEvery, from: "rl.checkpointEvery" },
    { key: "trainer.test_freq", value: rl.steps, from: "evaluation after RL (deno task train's eval stage)" },
    { key: "trainer.val_before_train", value: true, from: "the SFT policy's row of eval.md" },
    { key: "trainer.project_name", value: "mempo-lab", from: "(logger project)" },
    { key: "trainer.experiment_name", value: `${config.name}-${algorithm}`, from: "name + algorithm" },
    { key: "trainer.logger", value: "[console]", from: "(add wandb etc. as you like)" },
    { key: "trainer.nnodes", value: 1, from: "(your cluster)" },
    { key: "trainer.n_gpus_per_node", value: 1, from: "(your cluster)" },
  ];
  if (algorithm === "ppo") {
    o.push(
      { key: "algorithm.gamma", value: rl.gamma, from: "rl.gamma" },
      { key: "algorithm.lam", value: rl.lambda, from: "rl.lambda" },
      { key: "critic.model.path", value: `${ROOT}/model`, from: "the critic starts from the policy's trunk" },
      { key: "critic.optim.lr", value: rl.criticLr, from: "rl.criticLr" },
      { key: "critic.optim.weight_decay", value: 0, from: "RL AdamW: weightDecay 0" },
      { key: "critic.cliprange_value", value: rl.valueClip, from: "rl.valueClip" },
    );
  }
  return o;
}

/**
 * What verl has no key for, written as comments so that nothing is lost silently.
 *
 * Source: this package (`RlConfig` fields without a verl v0.7.0 trainer key).
 *
 * @param config The run's config.
 * @param algorithm The algorithm.
 * @returns Comment lines (without `#`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { notCarried } from "./verl_config.ts";
 *
 * assert.ok(notCarried(resolveConfig("quick"), "mempo").some((l) => l.startsWith("rl.maxTurnTokens")));
 * ```
 */
export function notCarried(config: ExperimentConfig, algorithm: Algorithm): string[] {
  const rl = config.rl;
  const lines = [
    `rl.maxTurnTokens ${rl.maxTurnTokens}: verl's agent loop has no per-turn token limit (a turn stops at its closing tag)`,
    `rl.miniBatchSize ${rl.miniBatchSize} turn sequences: approximated by ppo_mini_batch_size above`,
  ];
  if (algorithm === "mempo") {
    lines.push("MemPO's settings (memCoef, memThreshold, memCredit): config/mempo.json, read by mempo_verl");
  }
  if (algorithm === "ppo") {
    lines.push(`rl.vfCoef ${rl.vfCoef}: verl's critic has its own optimizer (no value-loss weight)`);
  }
  return lines;
}

/**
 * The overrides as a file: a comment with the source of each key, then
 * `key=value`; `config/run.sh` passes the non-comment lines to verl.
 *
 * Source: Hydra command-line override grammar (`key=value`).
 *
 * @param overrides The overrides.
 * @param notes Lines for the "not carried" comment block.
 * @returns The file's text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderOverrides } from "./verl_config.ts";
 *
 * assert.equal(renderOverrides([{ key: "a.b", value: 1, from: "rl.x" }], []), "# rl.x\na.b=1\n");
 * ```
 */
export function renderOverrides(overrides: readonly VerlOverride[], notes: readonly string[]): string {
  const body = overrides.map((o) => {
    const value = String(o.value);
    if (/\s/.test(value) || value === "") {
      throw new RangeError(`Cannot write override ${o.key}: its value must be one word, current value is "${value}"`);
    }
    return `# ${o.from}\n${o.key}=${value}\n`;
  }).join("");
  return body + (notes.length === 0 ? "" : `#\n# not carried to verl:\n${notes.map((n) => `#   ${n}\n`).join("")}`);
}

/**
 * MemPO's settings for `mempo_verl` (`config/mempo.json`), from the run's
 * `rl.mem*` fields through the same mapping the trainer uses (`mempoOptions`).
 *
 * ```text
 * variant ← memCredit, mem_coef ← memCoef, threshold ← memThreshold (null: off), epsilon ← epsilon, std ← std
 * coverage false, pool "question", close_tag true, span_weight "token" (MemPO's; the package sets no other)
 * ```
 *
 * Source: this package's `mempoOptions` (lib/train/rl_trainer.ts) and their defaults.
 *
 * @param config The run's config.
 * @returns The JSON object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { mempoJson } from "./verl_config.ts";
 *
 * assert.equal(mempoJson(resolveConfig("quick")).threshold, 0.5);
 * ```
 */
export function mempoJson(config: ExperimentConfig): Record<string, unknown> {
  const { credit, sequences } = mempoOptions(config.rl);
  return {
    _from: "mempo-lab rl.mem* fields (see mempo_verl/options.py FIELDS)",
    variant: credit.variant ?? "mempo",
    mem_coef: sequences.memCoef ?? 1,
    threshold: credit.threshold ?? null,
    coverage: false,
    pool: "question",
    close_tag: true,
    span_weight: "token",
    epsilon: credit.epsilon ?? 1e-6,
    std: credit.std ?? "bessel",
    norm_by_std: true,
  };
}

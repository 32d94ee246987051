/**
 * mempo-lab: PPO, GRPO and MemPO primitives and a complete training pipeline
 * for a small search-and-memory language-model agent, on TensorFlow.js.
 *
 * A 15-line tour, one lesson a line:
 *
 * 1. `responseLogProbPositions`: response token j is scored by the logits at P − 1 + j.
 * 2. `tokenLogProbs` / `tokenEntropy`: log π(a|s) and H(π) per token, `[B, T, V]` → `[B, T]`.
 * 3. `maskedSum` / `maskedMean` / `maskedWhiten`: every reduction skips padding and tool output.
 * 4. `computeGae`: GAE(γ, λ) that jumps over masked tool tokens (verl).
 * 5. `placeOutcomeReward`: a sequence score lands on the last sampled token.
 * 6. `ppoClipLoss`: clipped surrogate with asymmetric clip and dual-clip (verl).
 * 7. `aggregateLoss`: token-mean, seq-mean-token-sum/-mean/-sum-norm (Dr.GRPO).
 * 8. `klPenalty`: k1, abs, k2, k3, low_var_kl estimators of KL(π‖π_ref).
 * 9. `clippedValueLoss`: the critic's clipped squared error.
 * 10. `grpoAdvantages`: group-relative outcome advantage (verl, MiniMind, Dr.GRPO).
 * 11. `cispoLoss`: clipped IS-weight REINFORCE (MiniMax-M1).
 * 12. `memoryReward`: P_mem − P_full, how well ⟨mem⟩ alone predicts the answer.
 * 13. `memoryAdvantages` / `combineAdvantages`: MemPO's per-turn credit on ⟨mem⟩ spans.
 * 14. `setBackend`: wasm (default), cpu, webgpu, tensorflow, tensorflow-gpu.
 * 15. `assertAllClose`: the numeric check used by tests, docs and notebooks.
 *
 * Shape letters: B sequences, T response tokens, P prompt tokens, V vocabulary,
 * D model width, H heads, L layers, G group size, N episodes. Tensors are
 * written `[B, T]`, nested arrays `[B][T]`.
 *
 * This module exports the lessons (every public function of `lib/tensor/`,
 * `lib/advantage/` and `lib/loss/`), the pieces the notebooks show (model,
 * environment, agent loop, figures) and the pipeline's entry points. The rest
 * is imported by path, one concept per file:
 *
 * - `lib/wasm/`: the wasm kernels and threads behind `setBackend`;
 * - `lib/model/`: dense layers, safetensors, checkpoint records and hashes;
 * - `lib/env/`: question templates, the teacher's memory formats, chat context;
 * - `lib/data/`, `lib/text/`: Parquet files, data builds, the tokenizer's JSON;
 * - `lib/train/`: SFT demonstrations, micro-batches, gradient workers, RL batches, metrics;
 * - `lib/config/`: the config's schemas, help and saved form;
 * - `lib/eval/`: the research check, bootstrap, token cost, equal-reward groups;
 * - `lib/pipeline/`, `lib/release/`, `lib/episodes/`, `lib/view/`: run files, releases, episode logs, the viewer;
 * - `lib/export/`: the verl export (data, Hugging Face model and tokenizer, search server);
 * - `lib/cli/` and the root files (`errors.ts`, `atomic_file.ts`, `fault_point.ts`, …): the tasks' plumbing.
 *
 * The research instruments (teacher-forced probes of this task design,
 * `deno task diagnose`) live apart in `research/`; nothing here imports them.
 *
 * @module
 */

// Runtime: TensorFlow.js, its backends, seeded randomness
export { tf } from "./lib/tf.ts";
export { BACKEND_NAMES, type BackendName, type BackendOptions, getBackend, setBackend } from "./lib/backend.ts";
export { createRng, hashSeed, type Rng } from "./lib/random.ts";

// Lesson 1: RL framing, logprob positions and masks
export { responseLogProbPositions } from "./lib/advantage/positions.ts";
export { tokenLogProbs } from "./lib/tensor/log_probs.ts";
export { tokenEntropy } from "./lib/tensor/entropy.ts";
export { maskedMean, maskedSum } from "./lib/tensor/masked.ts";
export { maskedWhiten, type MaskedWhitenOptions } from "./lib/advantage/whiten.ts";
export { AGG_MODES, type AggMode, aggregateLoss, type AggregateOptions } from "./lib/tensor/aggregate_loss.ts";
export { assertRank, assertSameShape } from "./lib/tensor/shape.ts";
export { stopGradient } from "./lib/tensor/stop_gradient.ts";
export { clipByGlobalNorm, type ClipByGlobalNormResult } from "./lib/tensor/clip_grad_norm.ts";

// Lesson 2: GAE and outcome rewards
export { computeGae, type GaeInputs, type GaeOptions, type GaeResult } from "./lib/advantage/gae.ts";
export { placeOutcomeReward } from "./lib/advantage/outcome_reward.ts";

// Lesson 3: PPO clip
export { type PpoClipInputs, ppoClipLoss, type PpoClipOptions, type PpoClipResult } from "./lib/loss/ppo_clip.ts";

// Lesson 4: reference KL
export { KL_ESTIMATORS, type KlEstimator, klPenalty, type KlPenaltyOptions } from "./lib/loss/kl.ts";

// Lesson 5: value loss (the critic's value head is the model's, below)
export {
  clippedValueLoss,
  type ValueLossInputs,
  type ValueLossOptions,
  type ValueLossResult,
} from "./lib/loss/value_clip.ts";

// Lesson 6: GRPO and CISPO
export { type GroupStd, type GrpoAdvantageOptions, grpoAdvantages } from "./lib/advantage/grpo.ts";
export { type CispoInputs, cispoLoss, type CispoOptions, type CispoResult } from "./lib/loss/cispo.ts";

// Lesson 7: the environment and the agent loop
export { buildCorpus, generateWorld, type World } from "./lib/env/world.ts";
export { buildQaSplits, type QaItem } from "./lib/env/questions.ts";
export { buildSearchIndex, formatInformation, type SearchIndex } from "./lib/env/search.ts";
export { extractSolution, parseTurn, validateFormat } from "./lib/env/format.ts";
export { f1Score, outcomeReward } from "./lib/env/reward.ts";
export { buildContext, type ContextPolicy } from "./lib/env/context.ts";
export { type AgentPolicy, type Episode, runEpisodes } from "./lib/env/rollout.ts";
export { createTeacher } from "./lib/env/teacher.ts";
export { modelPolicy } from "./lib/env/model_policy.ts";
export { buildTokenizer, decode, encode, type Tokenizer } from "./lib/text/tokenizer.ts";
export { type QaRecord, readDataset, writeDataset } from "./lib/data/dataset.ts";
export { buildData, loadData, type LoadedData, TOKENIZER_SCAFFOLD } from "./lib/data/build.ts";

// Lesson 8: MemPO memory reward and advantage
export {
  memoryReward,
  type MemoryRewardInputs,
  type MemoryRewardOptions,
  type MemoryRewardResult,
} from "./lib/advantage/memory_reward.ts";
export {
  type CombineAdvantageInputs,
  type CombineAdvantageOptions,
  combineAdvantages,
  type InfomemAdvantageInputs,
  infomemAdvantages,
  type MemoryAdvantageInputs,
  type MemoryAdvantageOptions,
  memoryAdvantages,
  type MemorySpan,
  spanLengthScales,
} from "./lib/advantage/memory_advantage.ts";
export { computeMemoryCredit, type MemoryCredit, type MemoryCreditOptions } from "./lib/train/memory_credit.ts";

// The policy model: decoder, value head, sampling, scoring, checkpoints
export { type ModelConfig, modelPreset } from "./lib/model/config.ts";
export { createModel, type Model } from "./lib/model/params.ts";
export { forwardHidden, forwardLogits, valueHead } from "./lib/model/transformer.ts";
export { generate, type GenerateOptions, type GenerateResult } from "./lib/model/generate.ts";
export { scoreContinuations, type ScorePair } from "./lib/model/score.ts";
export { loadCheckpoint, saveCheckpoint } from "./lib/model/checkpoint.ts";

// Lesson 9: the trainers and the pipeline (deno task train, eval, compare, release, export-verl)
export { sftStep, type SftStepOptions, type SftStepResult } from "./lib/train/sft.ts";
export { tasksFromRecords } from "./lib/train/demos.ts";
export { trainSft, type TrainSftOptions } from "./lib/train/sft_trainer.ts";
export { rlStep, type RlStepContext, rlStepContext } from "./lib/train/rl_trainer.ts";
export { type MetricsRow } from "./lib/train/metrics.ts";
export { readMetricsLog } from "./lib/train/metrics_log.ts";
export {
  type Algorithm,
  ALGORITHMS,
  type ConfigOverrides,
  type ExperimentConfig,
  PRESETS,
  resolveConfig,
} from "./lib/config/experiment.ts";
export {
  ensureData,
  type PipelineOptions,
  type PipelineResult,
  type ProgressEvent,
  runPipeline,
} from "./lib/pipeline/pipeline.ts";
export { evaluateSavedRun } from "./lib/pipeline/evaluate_saved.ts";
export { type CompareOptions, type CompareResult, compareRun } from "./lib/pipeline/compare.ts";
export { branchRun } from "./lib/pipeline/branch.ts";
export { loadRelease } from "./lib/release/release.ts";
export { startFromRelease } from "./lib/release/from_release.ts";
export { exportVerl, type ExportVerlOptions } from "./lib/export/export_verl.ts";
export { type AgentSpec, evalMarkdown, type EvalRow, evaluateAgents, runAgents } from "./lib/eval/evaluate.ts";

// What a run leaves: episodes, figures and tables (notebook displayables)
export { readEpisodeLog } from "./lib/episodes/episode_log.ts";
export { episodeView } from "./lib/view/episode_html.ts";
export { runFigures } from "./lib/pipeline/run_figures.ts";
export { linePlot, type LinePlotOptions, type Series } from "./lib/viz/line_plot.ts";
export { evalFigure } from "./lib/viz/eval_figure.ts";
export { trainingFigure } from "./lib/viz/training_figure.ts";
export { markdownTable } from "./lib/viz/table.ts";

// Testing
export { type AllCloseOptions, assertAllClose } from "./lib/testing/all_close.ts";

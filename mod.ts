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
 * @module
 */

// Runtime and backends
export { tf } from "./lib/tf.ts";
export {
  BACKEND_NAMES,
  type BackendName,
  type BackendOptions,
  getBackend,
  loadNodeBackend,
  releaseBackend,
  setBackend,
  wasmThreads,
  webgpuAvailable,
} from "./lib/backend/backend.ts";
export {
  PIECE_MATMUL_KERNEL,
  QKV_HEADS_KERNEL,
  registerWasmKernels,
  RMS_NORM_KERNEL,
  ROPE_KERNEL,
} from "./lib/backend/wasm_kernels.ts";
export {
  checkWasmGlue,
  PINNED_WASM_VERSION,
  startWasm,
  startWasmFromEnv,
  threadsFromEnv,
  WASM_GLUE_MARKERS,
  wasmEnvError,
} from "./lib/backend/wasm_threads.ts";
export { createRng, hashSeed, hashString, type Rng, shuffled } from "./lib/random.ts";

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

// Lesson 5: value loss
export {
  clippedValueLoss,
  type ValueLossInputs,
  type ValueLossOptions,
  type ValueLossResult,
} from "./lib/loss/value_clip.ts";

// Lesson 6: GRPO and CISPO
export { type GroupStd, type GrpoAdvantageOptions, grpoAdvantages } from "./lib/advantage/grpo.ts";
export { type CispoInputs, cispoLoss, type CispoOptions, type CispoResult } from "./lib/loss/cispo.ts";

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

// The policy model (tokenizer, decoder, sampling, scoring, checkpoints)
export {
  buildTokenizer,
  decode,
  encode,
  type EncodeResult,
  SPECIAL_TOKENS,
  type SpecialToken,
  splitWords,
  type Tokenizer,
  tokenizerFromJson,
  tokenizerToJson,
} from "./lib/text/tokenizer.ts";
export {
  countParameters,
  forwardMatmulFlops,
  type ModelConfig,
  modelPreset,
  type ModelPresetName,
  validateModelConfig,
} from "./lib/model/config.ts";
export {
  assignWeights,
  copyModel,
  createModel,
  type CreateModelOptions,
  type Model,
  type ModelKind,
  setTrainableWeights,
  trainableVariables,
  weightShapes,
} from "./lib/model/params.ts";
export { bmm, bmmTransposed, dense, MIN_PIECE_PRODUCT } from "./lib/model/dense.ts";
export {
  causalBias,
  disposeFusedWeights,
  forwardHidden,
  forwardLogits,
  type ForwardOptions,
  type ForwardResult,
  type FusedWeights,
  fuseWeights,
  type KvCache,
  outputLogits,
  outputProjection,
  valueHead,
} from "./lib/model/transformer.ts";
export { generate, type GenerateOptions, type GenerateResult } from "./lib/model/generate.ts";
export {
  chunksByTokens,
  scoreContinuations,
  type ScoreOptions,
  type ScorePair,
  sequenceLogProbs,
  sequenceLogProbsAndEntropy,
} from "./lib/model/score.ts";
export {
  decodeSafetensors,
  encodeSafetensors,
  type NamedArray,
  type SafetensorsFile,
} from "./lib/model/safetensors.ts";
export {
  type CheckpointContents,
  type CheckpointRecord,
  currentCheckpoint,
  loadCheckpoint,
  type LoadCheckpointOptions,
  type LoadedCheckpoint,
  modelFromTorchLayout,
  readCheckpointRecord,
  saveCheckpoint,
  settleCheckpoint,
  sha256,
  torchLayoutArrays,
  verifyCheckpoint,
  type VerifyCheckpointOptions,
} from "./lib/model/checkpoint.ts";

// Lesson 7: the environment and the agent loop
export {
  buildCorpus,
  type CorpusDocument,
  DECOY_RELATION,
  DEFAULT_WORLD_SIZES,
  type Entity,
  entityDocument,
  type EntityType,
  generateWorld,
  NOUNS,
  type Relation,
  RELATION_WORDS,
  RELATIONS,
  TRAITS,
  type World,
  type WorldSizes,
  worldSizes,
} from "./lib/env/world.ts";
export {
  buildQaSplits,
  type Hop,
  indexedQuestion,
  joinedQuestions,
  makeSubQuestion,
  markerOf,
  numberedQuestion,
  objectiveMarker,
  objectivePool,
  type QaItem,
  type QaSplitOptions,
  type QaSplits,
  splitIndexedQuestion,
  type SubjectIndex,
  type SubQuestion,
  type Template,
  TEMPLATES,
  testSubjectCount,
} from "./lib/env/questions.ts";
export {
  fillerWords,
  type Lengthening,
  LENGTHENINGS,
  lengthenQuestion,
  wordsBefore,
} from "./lib/env/longer_questions.ts";
export { buildSearchIndex, formatInformation, NO_RESULTS, type SearchHit, type SearchIndex } from "./lib/env/search.ts";
export { extractSolution, type FormatCheck, type ParsedTurn, parseTurn, validateFormat } from "./lib/env/format.ts";
export {
  type AnswerScore,
  emCheck,
  f1Score,
  normalizeAnswer,
  normalizeTargets,
  outcomeReward,
  scoreAnswer,
  type Targets,
} from "./lib/env/reward.ts";
export {
  buildContext,
  type BuildContextOptions,
  type BuiltContext,
  type ChatRole,
  type ChatTemplate,
  chatTemplate,
  type ContextPolicy,
  type HistoryTurn,
  SYSTEM_PROMPT,
} from "./lib/env/context.ts";
export {
  type AgentEnv,
  type AgentPolicy,
  type Episode,
  type EpisodeTask,
  type EpisodeTurn,
  type RolloutOptions,
  runEpisodes,
  scriptedTurn,
  type TurnOutput,
  type TurnRequest,
  turnStopIds,
} from "./lib/env/rollout.ts";
export {
  carriedObjectives,
  chainTeacherTurn,
  createTeacher,
  droppedObjectives,
  FORGOTTEN,
  isStateMemory,
  MEMORY_FORMATS,
  type MemoryFormat,
  parseStateMemory,
  type StateLayout,
  stateLayout,
  type StateMemory,
  stateTeacherTurn,
  type TeacherOptions,
  type TeacherTurn,
  teacherTurn,
} from "./lib/env/teacher.ts";
export { modelPolicy, type ModelPolicyOptions } from "./lib/env/model_policy.ts";
export { teacherFirst } from "./lib/env/teacher_first.ts";
export { goldContinuation, type MemoryRewardPair, memoryRewardPairs } from "./lib/env/memory_inputs.ts";
export {
  type ChatMessage,
  type QaRecord,
  readCorpus,
  readDataset,
  writeCorpus,
  writeDataset,
} from "./lib/data/dataset.ts";
export {
  buildData,
  type BuildDataOptions,
  DATA_SPLITS,
  DATA_VERSION,
  dataDirOf,
  type DataSplit,
  loadData,
  type LoadedData,
  SPLIT_SETS,
  splitDir,
  splitTitle,
  TOKENIZER_SCAFFOLD,
} from "./lib/data/build.ts";
export { unseenTestWords } from "./lib/data/coverage.ts";
export { checkRunTokenizer, type RunTokenizerAction } from "./lib/data/run_tokenizer.ts";

// Training building blocks
export { type AdamW, type AdamWConfig, createAdamW } from "./lib/optim/adamw.ts";
export { collateLm, disposeLmBatch, type LmBatch, type LmSequence } from "./lib/train/collate.ts";
export { sftStep, type SftStepOptions, type SftStepResult } from "./lib/train/sft.ts";
export { accumulateGradients, splitBalanced, splitByTokens, sumGradients } from "./lib/train/micro_batches.ts";
export {
  createGradientWorkers,
  type GradientWorkers,
  gradientWorkersFor,
  sftWorkersFromEnv,
} from "./lib/train/gradient_workers.ts";
export { cosineLr, stagedHorizon } from "./lib/optim/schedule.ts";
export { type CopyTaskOptions, copyTaskSequences } from "./lib/train/copy_task.ts";
export { type RecallTaskOptions, recallTaskSequences } from "./lib/train/recall_task.ts";
export { SFT_STAGES, WARMUP_STAGES } from "./lib/stages.ts";
export { type MemoryDrillOptions, memoryDrillSequences } from "./lib/train/memory_drill.ts";
export { WARMUP_LOSS_WINDOW, warmupFormed } from "./lib/train/warmup_stop.ts";
export {
  type Algorithm,
  ALGORITHMS,
  type ConfigOverrides,
  DATA_CONFIG_SCHEMA,
  type DataConfig,
  DEFAULT_JOIN_MAX,
  DEFAULT_TEACHER_MEMORY,
  EVAL_CONFIG_SCHEMA,
  type EvalConfig,
  EXPERIMENT_CONFIG_SCHEMA,
  type ExperimentConfig,
  type ExperimentPresetName,
  mergeSections,
  presetDataDir,
  PRESETS,
  resolveConfig,
  RL_CONFIG_SCHEMA,
  type RlConfig,
  SFT_CONFIG_SCHEMA,
  type SftConfig,
  sftSeed,
  TEACHER_MEMORIES,
  teacherMemory,
  validateConfig,
  valueAt,
} from "./lib/config/experiment.ts";
export { type ConfigField, configFields, configHelp } from "./lib/config/config_help.ts";
export { asSaved, readRunConfig } from "./lib/config/run_config.ts";
export {
  type DemoOptions,
  joinFromPool,
  joinTask,
  sftDemoOptions,
  tasksFromRecords,
  teacherDemonstrations,
  turnSequences,
} from "./lib/train/demos.ts";
export { type SftLogRow, trainSft, type TrainSftOptions } from "./lib/train/sft_trainer.ts";
export { computeMemoryCredit, type MemoryCredit, type MemoryCreditOptions } from "./lib/train/memory_credit.ts";
export {
  gaeTurnSequences,
  type OutcomeTurnOptions,
  outcomeTurnSequences,
  type TurnSequence,
} from "./lib/train/rl_batch.ts";
export {
  criticValues,
  policyUpdate,
  type PolicyUpdateConfig,
  type UpdateModels,
  type UpdateStats,
} from "./lib/train/policy_update.ts";
export {
  drawQuestions,
  mempoOptions,
  type RlModels,
  rlModelsFromSft,
  rlOptimizer,
  rlStep,
  type RlStepContext,
  rlStepContext,
  type RlStepEpisodes,
} from "./lib/train/rl_trainer.ts";
export {
  episodeMetrics,
  equalGroupMetrics,
  equalGroupShare,
  explainedVariance,
  groupShare,
  type MetricsRow,
  rewardsEqual,
  rlStages,
} from "./lib/train/metrics.ts";
export { type MetricsLog, parseMetricsLog, readMetricsLog, tornLineNote } from "./lib/train/metrics_log.ts";
export {
  AGENT_NAMES,
  agentObjectivesTable,
  agentPolicy,
  type AgentSpec,
  evalMarkdown,
  type EvalRow,
  evaluateAgents,
  evaluateCell,
  keptFactsMarkdown,
  type OnEvalEpisodes,
  runAgents,
  SFT_AGENT,
  TEACHER_AGENT,
  testFingerprint,
  testSizes,
} from "./lib/eval/evaluate.ts";
export { createEvalWorkers, type EvalWorkers, evalWorkersFor, evalWorkersFromEnv } from "./lib/eval/eval_workers.ts";
export {
  type PairedComparison,
  researchCheck,
  researchCheckMarkdown,
  type ResearchCheckOptions,
  type ResearchClaim,
} from "./lib/eval/research_check.ts";
export {
  bootstrapMeans,
  type BootstrapResample,
  pairedBootstrap,
  type PairedBootstrapOptions,
  type PairedBootstrapResult,
  quantile,
} from "./lib/eval/paired_bootstrap.ts";
export {
  EQUAL_REWARD_QUESTIONS,
  equalRewardCell,
  equalRewardGroups,
  equalRewardGroupsMarkdown,
  type EqualRewardGroupsOptions,
  type EqualRewardGroupsRow,
  equalRewardOptions,
} from "./lib/eval/equal_reward_groups.ts";
export {
  demoContexts,
  type LongestContextRow,
  longestContexts,
  longestContextsMarkdown,
  type TrainingContexts,
  trainingContexts,
} from "./lib/eval/longest_contexts.ts";
export {
  RL_SIGNAL_METRICS,
  rlSignal,
  rlSignalMarkdown,
  type RlSignalMetric,
  type RlSignalRow,
} from "./lib/eval/rl_signal.ts";
export { tokenCost, tokenCostMarkdown, type TokenCostRow } from "./lib/eval/token_cost.ts";
export { type KeptFacts, keptFacts, memoryDecisions } from "./lib/eval/kept_facts.ts";
export {
  type DecisionEntropy,
  decisionEntropy,
  decisionEntropyMarkdown,
  type DecisionEntropyRow,
  decisionEntropyRows,
  decisionPlaces,
} from "./lib/eval/decision_entropy.ts";
export {
  type CopyAccuracy,
  copyAccuracy,
  type CopyDiagnostic,
  copyDiagnosticMarkdown,
  type CopyDiagnosticOptions,
  copyDiagnostics,
  labelPositions,
  type LookupAccuracy,
  lookupAccuracy,
  lookupPositions,
  memorySlotAccuracy,
  memorySlotPositions,
  probeEpisodes,
  type ProbeOptions,
  probeTurns,
  reverseObjectives,
} from "./lib/diagnostics/copy_diagnostic.ts";
export {
  AFTER_KINDS,
  type AfterKind,
  afterKind,
  partAt,
  PATH_COLUMNS,
  pathCells,
  type PathLeave,
  type PathTurn,
  type TeacherPath,
  teacherPath,
  type TeacherPathOptions,
  TURN_PARTS,
  type TurnPart,
} from "./lib/diagnostics/teacher_path.ts";
export {
  type Hits,
  probeHits,
  teacherForcedArgmax,
  teacherForcedArgmaxes,
  teacherForcedHits,
} from "./lib/diagnostics/teacher_forced.ts";
export {
  CARRY_OUTCOMES,
  carryErrors,
  type CarryOutcome,
  carryOutcome,
  type CarryRecord,
  carryRecords,
  type CarryStep,
} from "./lib/diagnostics/carry_errors.ts";
export { extractionByPlace, type ExtractionPlace, extractionPositions } from "./lib/diagnostics/extraction.ts";
export {
  STEP_KINDS,
  type StepAccuracy,
  stepAccuracy,
  stepCells,
  type StepKind,
  stepPositions,
} from "./lib/diagnostics/step_diagnostic.ts";
export {
  SUBJECT_OUTCOMES,
  subjectIndex,
  type SubjectOutcome,
  subjectOutcome,
  THINK_KINDS,
  type ThinkKind,
  thinkPositions,
  type ThinkRecord,
  thinkRecords,
} from "./lib/diagnostics/think_lookups.ts";
export {
  ensureData,
  type PipelineOptions,
  type PipelineResult,
  type ProgressEvent,
  runPipeline,
} from "./lib/pipeline/pipeline.ts";
export {
  DEMO_CONTEXTS_STATE,
  type EvalFiles,
  evaluateRun,
  type EvaluateRunOptions,
  runDemoContexts,
  writeEvalFiles,
} from "./lib/pipeline/evaluate_run.ts";
export { readEvalJson, trainingTimings } from "./lib/pipeline/eval_json.ts";
export { type OpenedRun, openRun } from "./lib/pipeline/open_run.ts";
export {
  compareMarkdown,
  type CompareOptions,
  type ComparePaired,
  type CompareResult,
  type CompareRow,
  compareRun,
} from "./lib/pipeline/compare.ts";
export { branchRun, SFT_FIELDS, sftConfigDifference } from "./lib/pipeline/branch.ts";
export { evaluateSavedRun } from "./lib/pipeline/evaluate_saved.ts";

// The released SFT policy: a folder of the repository, every file's hash checked before RL starts from it
export {
  loadRelease,
  RELEASE_DIR,
  RELEASE_FORMAT,
  RELEASE_METRICS,
  type ReleaseManifest,
  type ReleaseProvenance,
  type ReleaseValidationRow,
  verifyRelease,
  writeRelease,
} from "./lib/release/release.ts";
export { startFromRelease } from "./lib/release/from_release.ts";
export { RL_STEP_AXIS, runFigures } from "./lib/pipeline/run_figures.ts";
export { evalEpisodeLog, keepCoveredEpisodes, rlEpisodeLog } from "./lib/pipeline/run_episodes.ts";

// The episodes a run keeps (episodes/*.jsonl) and deno task view, which shows them
export {
  EPISODE_RECORD_VERSION,
  type EpisodeCredit,
  type EpisodeIdentity,
  type EpisodeRecord,
  episodeRecord,
  isEpisodeRecord,
  type TeacherLeaveRecord,
  turnContext,
  type TurnRecord,
} from "./lib/episodes/episode_record.ts";
export {
  appendEpisodes,
  episodeLogPath,
  EPISODES_DIR,
  keepEpisodes,
  parseEpisodeLog,
  readEpisodeLog,
} from "./lib/episodes/episode_log.ts";
export { teacherLeave } from "./lib/episodes/teacher_leave.ts";
export {
  advantageColor,
  advantageScale,
  EPISODE_CSS,
  episodeHtml,
  type EpisodeHtmlOptions,
  episodePairHtml,
  episodeView,
} from "./lib/view/episode_html.ts";
export {
  agentLabel,
  type CurveData,
  CURVES,
  type CurveSpec,
  episodeStages,
  findRuns,
  isRunName,
  readRunJson,
  runCurves,
  runEpisodeRecords,
  type RunRef,
  type RunSummary,
  runSummary,
} from "./lib/view/run_index.ts";
export {
  type EpisodeBrowser,
  type EpisodePick,
  episodesPage,
  notFoundPage,
  runPage,
  type RunPageData,
  runsPage,
  runsTable,
  statusLine,
} from "./lib/view/pages.ts";
export { browseEpisodes, fileUnder, serveView, type ServeViewOptions, viewApp } from "./lib/view/server.ts";

// The tasks' command line: flags declared once, one error path
export {
  executeTask,
  type FlagSpec,
  type FlagValues,
  parseTaskArgs,
  runTask,
  SHARED_FLAGS,
  type SharedFlagSpec,
  type TaskArgs,
  taskHelp,
  type TaskIo,
  type TaskSpec,
  usageLine,
} from "./lib/cli/task.ts";
export { commandSucceeds } from "./lib/cli/command_probe.ts";
export { type Interrupt, onInterrupt } from "./lib/cli/interrupt.ts";
export { DataError, UsageError } from "./lib/errors.ts";
export { integerSetting, type IntegerSettingOptions } from "./lib/integer_setting.ts";
export { writeFileAtomic } from "./lib/atomic_file.ts";
export { type JsonFileOptions, parseJsonText, readJsonFile } from "./lib/json_file.ts";
export { parseJsonLines, readJsonLines } from "./lib/json_lines.ts";
export { pathExists } from "./lib/path_exists.ts";
export { faultPoint } from "./lib/fault_point.ts";

// Scaling out on verl: the export (docs/verl.md)
export {
  CHAT_TEMPLATE,
  HF_SPECIAL_TOKENS,
  type HfTokenizerFiles,
  hfTokenizerFiles,
} from "./lib/export/hf_tokenizer.ts";
export {
  hfGenerationConfig,
  hfLlamaConfig,
  hfModelArrays,
  modelConfigFromHf,
  readHfModel,
  ropeHalfPermutation,
  writeHfModel,
} from "./lib/export/hf_model.ts";
export {
  exportVerlData,
  maxInformationChars,
  maxToolMessageTokens,
  promptTokens,
  type VerlDataSummary,
} from "./lib/export/verl_data.ts";
export {
  mempoJson,
  notCarried,
  renderOverrides,
  VERL_VERSION,
  verlAdvEstimator,
  type VerlOverride,
  verlOverrides,
  type VerlSizes,
} from "./lib/export/verl_config.ts";
export {
  loadSearchIndex,
  type ParsedRetrieveRequest,
  parseRetrieveRequest,
  retrievalHandler,
  type RetrievalOptions,
  type RetrievedDocument,
  type RetrieveRequest,
  retrieveResult,
  searchR1Contents,
} from "./lib/export/search_server.ts";
export { exportReadme, type ExportReadmeInfo } from "./lib/export/export_readme.ts";
export { exportVerl, type ExportVerlOptions, type ExportVerlSummary, PYTHON_FILES } from "./lib/export/export_verl.ts";

// Figures (Observable Plot on linkedom) and notebook display helpers
export { JUPYTER_DISPLAY, type SvgFigure, svgFigure } from "./lib/viz/display.ts";
export {
  type LinePanel,
  linePanels,
  type LinePanelsOptions,
  linePlot,
  type LinePlotOptions,
  type Series,
} from "./lib/viz/line_plot.ts";
export { type PlotPanel, renderPanels } from "./lib/viz/plot_svg.ts";
export { LEGEND_ROW, type LegendEntry, legendPanel, legendSize } from "./lib/viz/legend.ts";
export {
  AGENT_ORDER,
  agentSlots,
  SERIES_COLORS,
  SERIES_DASHES,
  SERIES_SYMBOLS,
  type SeriesStyle,
  seriesStyle,
} from "./lib/viz/series_style.ts";
export {
  CONTEXT_LINES,
  EVAL_METRICS,
  evalFigure,
  type EvalFigureRow,
  type EvalMetric,
  OBJECTIVES_AXIS,
} from "./lib/viz/eval_figure.ts";
export {
  TRAINING_METRICS,
  TRAINING_PANELS,
  trainingFigure,
  type TrainingFigureOptions,
  type TrainingRow,
} from "./lib/viz/training_figure.ts";
export { markdownTable, type TableDisplay } from "./lib/viz/table.ts";
export { cleanNotebook, type Notebook, notebookCode } from "./lib/viz/notebook.ts";

// Testing
export { type AllCloseOptions, assertAllClose, type Numeric } from "./lib/testing/all_close.ts";

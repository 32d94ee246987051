/**
 * Experiment configuration: every hyperparameter of `deno task train`, its
 * presets (`quick` for CI, `default` for the 30-minute run), overrides and
 * validation with messages that name the field and its value.
 *
 * The schema (zod, one strict object per section) is the single source of
 * the fields: their TypeScript types are inferred from it, it checks every
 * type and range and rejects unknown keys at every depth, and its
 * descriptions are what `deno task train --help-config` prints. A new field
 * is one line in its section's schema: a type with its range, `.optional()`
 * when a preset may leave it out, and a description (with `unset` saying
 * what leaving it out means).
 *
 * @module
 */
import { z } from "zod";
import { BACKEND_NAMES } from "../backend.ts";
import type { ModelPresetName } from "../model/config.ts";
import { KL_ESTIMATORS } from "../loss/kl.ts";
import type { GroupStd } from "../advantage/grpo.ts";
import { worldSizes } from "../env/world.ts";
import { testSubjectCount } from "../env/questions.ts";
import { UsageError } from "../errors.ts";
import type { MemoryFormat } from "../env/teacher.ts";

// Each helper carries the house's message ("must be an integer ≥ 1"), shown as `<field> <message>, current value is <v>`.
const int = (min: number) => {
  const error = `must be an integer ≥ ${min}`;
  return z.number({ error }).int({ error }).min(min, { error });
};
const positive = () => z.number({ error: "must be > 0" }).positive({ error: "must be > 0" });
const inRange = (lo: number, hi: number) => {
  const error = `must be in [${lo}, ${hi}]`;
  return z.number({ error }).min(lo, { error }).max(hi, { error });
};
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(", ")}` });
const flag = () => z.boolean({ error: "must be true or false" });
const list = <T extends z.ZodType>(item: T) =>
  z.array(item, { error: "must be a non-empty list" }).min(1, { error: "must be a non-empty list" });
const path = () => z.string({ error: "must be a path (a string)" }).min(1, { error: "must be a non-empty path" });
const section = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape, { error: "must be an object of fields" });

/** The teacher's memory formats a run may choose (`sft.teacherMemory`): the two the presets use. */
export const TEACHER_MEMORIES = ["state-relations", "state-relations-bare"] as const satisfies readonly MemoryFormat[];

/** The teacher's memory format when `sft.teacherMemory` is left out ({@linkcode teacherMemory}). */
export const DEFAULT_TEACHER_MEMORY: MemoryFormat = "state-relations";

/** Most objectives joined to a question: `sft.joinShare`'s, and `rl.joinShare`'s when `rl.joinMax` is not set. */
export const DEFAULT_JOIN_MAX = 7;

/** RL algorithms, in the order `--algo` lists them. */
export const ALGORITHMS = ["ppo", "grpo", "mempo"] as const;

/** RL algorithms. */
export type Algorithm = typeof ALGORITHMS[number];

/** The schema of {@linkcode DataConfig}: data generation. */
export const DATA_CONFIG_SCHEMA = section({
  trainCount: int(1).describe("Training questions of the main world."),
  testCount: int(1).describe("Questions per test set."),
  testObjectives: list(int(1)).describe("Objective counts of the test sets."),
  trainObjectives: z.union([int(1), list(int(1))], { error: "must be an integer ≥ 1 or a non-empty list of them" })
    .optional().meta({
      description: "Objectives per training question of the main world (a list is cycled).",
      unset: "2",
    }),
  sizes: section({
    countries: int(1).optional().meta({ description: "Countries.", unset: "8" }),
    cities: int(1).optional().meta({ description: "Cities (≥ countries: each country has a capital).", unset: "32" }),
    people: int(1).optional().meta({ description: "People.", unset: "100" }),
    companies: int(1).optional().meta({ description: "Companies.", unset: "40" }),
    films: int(1).optional().meta({ description: "Films.", unset: "40" }),
    distractors: int(0).optional().meta({ description: "Distractor sentences per document.", unset: "2" }),
    lives: int(0).max(1, { error: "must be 0 or 1" }).optional().meta({
      description:
        "1: each person also lives in a city, a plausible wrong answer read in the same search results as its " +
        "birthplace (the memory's decision: which fact to keep; sft.dropProbability keeps the wrong one).",
      unset: "0",
    }),
  }).optional().meta({
    description: "World sizes (entities per type, distractor sentences per document).",
    unset: "each size's own",
  }),
  auxWorlds: int(0).optional().meta({
    description: "Auxiliary worlds (the main world's names in new roles) whose questions feed SFT only.",
    unset: "0",
  }),
  auxObjectives: list(int(1)).optional().meta({
    description: "Objectives of the auxiliary worlds' questions, cycled.",
    unset: "trainObjectives",
  }),
  questionOnce: flag().optional().meta({
    description: "Whether the memory context shows the question before the first turn only (MEM1's state: what " +
      "is still asked lives in <mem> with the answers found, so no turn after the first reads the question, " +
      "whatever its length). The full-history context always keeps the question.",
    unset: "false",
  }),
  distinctAnswers: flag().optional().meta({
    description: "Whether every subject and answer of a question is a different name (no answer repeats in a " +
      "memory or a final answer, so copying the list is a lookup by the word before, whatever its length).",
    unset: "false",
  }),
  validCount: int(0).optional().meta({
    description: "Questions per validation set (one per test objective count), asked about a share of the " +
      "training entities that training questions then never ask about (deno task eval RUN --split valid); the " +
      "test sets stay those drawn without it; the training questions are then drawn anew, without those entities.",
    unset: "0 (no validation sets)",
  }),
});

/** The schema of {@linkcode SftConfig}: supervised fine-tuning on teacher demonstrations. */
export const SFT_CONFIG_SCHEMA = section({
  steps: int(0).describe("Optimiser steps."),
  batchSize: int(1).describe("Turn sequences per step."),
  lr: positive().describe("Peak learning rate (cosine to lr / 10 after warmupSteps)."),
  warmupSteps: int(0).describe("Linear warm-up steps."),
  demos: int(1).describe("Teacher demonstrations (episodes); half under each context policy."),
  seed: int(0).optional().meta({
    description: "Seed of the policy's initialisation and of SFT's draws (the warm-up's and mixed sequences, the " +
      "demonstrations' drops, carries, joins and filler, the drills, the batches); the world and its questions stay " +
      "the experiment seed's, so repeats of SFT on one world differ only here.",
    unset: "the experiment seed",
  }),
  pretrainSteps: int(0).optional().meta({
    description: "Steps of the induction warm-up (copying random word sequences) before SFT.",
    unset: "0",
  }),
  pretrainHorizon: int(1).optional().meta({
    description: "The step at which the warm-up's cosine schedule would end (≥ pretrainSteps): a longer horizon " +
      "stops the warm-up while its learning rate is still high.",
    unset: "pretrainSteps",
  }),
  pretrainLoss: positive().optional().meta({
    description: "The warm-up's end by its loss: it goes on past sft.pretrainSteps, up to sft.pretrainHorizon, until " +
      "the mean loss of its last 20 steps is below this (the copy task's loss falls from ~5 to under 0.5 once an " +
      "induction head forms, at a step that differs from seed to seed). Needs sft.pretrainHorizon > sft.pretrainSteps.",
    unset: "the warm-up stops at sft.pretrainSteps",
  }),
  recallSteps: int(0).optional().meta({
    description: "Steps of the recall warm-up after the induction warm-up (facts 's r o .' of random words, then " +
      "questions 's r' answered by their o: the two-word read of a document; lib/train/recall_task.ts); it goes on " +
      "past these, up to sft.recallHorizon, until the mean loss of its last 20 steps is below sft.recallLoss.",
    unset: "0 (no recall warm-up)",
  }),
  recallHorizon: int(1).optional().meta({
    description: "The recall warm-up's last step at most, and the end of its cosine schedule.",
    unset: "sft.recallSteps",
  }),
  recallLoss: positive().optional().meta({
    description: "The recall warm-up's end by its loss (guessing between a subject's two facts costs ln 2 ≈ 0.69).",
    unset: "the recall warm-up stops at sft.recallSteps",
  }),
  inductionMix: inRange(0, 10).optional().meta({
    description: "Induction sequences added to the SFT pool, as a fraction of the demonstration sequences.",
    unset: "0",
  }),
  dropProbability: inRange(0, 1).describe(
    "The cold-start teacher's probability of keeping the wrong fact it reads: the plausible wrong answer read " +
      "beside the needed one (data.sizes.lives: the other city), or, where the objective has none, forgetting the " +
      "answer once it is no longer the one just found. What RL and MemPO's memory credit are to improve.",
  ),
  drillMix: inRange(0, 10).optional().meta({
    description: "Memory drills (the first turn's extraction of the open objectives from a question of 1-10 " +
      "objectives on random names) added to the SFT pool, as a fraction of the demonstration sequences.",
    unset: "0",
  }),
  drillFrom: int(0).optional().meta({
    description: "The SFT step from which the memory drills (sft.drillMix) join the pool: before it the steps draw " +
      "from the demonstrations (and induction sequences) alone, as a run continued with the drill added would.",
    unset: "0 (from the first step)",
  }),
  horizons: z.array(int(1), { error: "must be a list" }).optional().meta({
    description: "The cosine schedule extended in stages, as a run trained to h1 and then continued to h2 … and " +
      "sft.steps: up to step h1 the learning rate follows a cosine that ends at h1, from h1 one that ends at h2 " +
      "(rising back there), …, the last one ending at sft.steps. Ascending, each below sft.steps.",
    unset: "[] (one cosine to sft.steps)",
  }),
  joinShare: inRange(0, 1).optional().meta({
    description: "With data.questionOnce: the share of memory-context demonstrations that are a training " +
      "question joined with objectives of other training questions (1 to 7 more, no name shared), " +
      "learned from the second turn on: no learned turn's context holds the joined question, so what the policy " +
      "meets is a memory of more open objectives and answers than any training question asks (the full-history " +
      "demonstrations are unchanged).",
    unset: "0",
  }),
  teacherMemory: oneOf(TEACHER_MEMORIES).optional().meta({
    description: "What the teacher's <mem> holds: state-relations (the objectives still open, each with the " +
      "relations left, then the answers found: the same operation every turn, whatever the number of objectives) " +
      "or state-relations-bare (the same with no ';' between items or answers).",
    unset: DEFAULT_TEACHER_MEMORY,
  }),
});

/** The schema of {@linkcode RlConfig}: RL (shared by PPO, GRPO, MemPO). */
export const RL_CONFIG_SCHEMA = section({
  algorithms: z.array(oneOf(ALGORITHMS), { error: "must be a list" })
    .describe("Algorithms to train, in order (each starts from the SFT weights)."),
  steps: int(0).describe("RL steps per algorithm."),
  questionsPerStep: int(1).describe("Questions per step."),
  groupSize: int(1).describe("G, rollouts per question (GRPO / MemPO group size; PPO uses them too)."),
  lr: positive().describe("Policy learning rate (constant)."),
  criticLr: positive().describe("Critic learning rate (PPO)."),
  klCoef: inRange(0, 10).describe("β, reference-KL coefficient."),
  klEstimator: oneOf(KL_ESTIMATORS as [string, ...string[]] as ["k1", "abs", "k2", "k3", "low_var_kl"])
    .describe("KL estimator."),
  clipLow: inRange(0, 0.999).describe("ε_low of the PPO clip."),
  clipHigh: inRange(0, 10).describe("ε_high of the PPO clip."),
  ppoEpochs: int(1).describe("Updates per batch."),
  miniBatchSize: int(1).describe("Turn sequences per minibatch."),
  maxGradNorm: positive().describe("Global gradient-norm clip."),
  temperature: inRange(0.01, 10).describe("Sampling temperature of rollouts."),
  maxTurns: int(1).describe("Turn limit during training."),
  maxTurnTokens: int(8).describe("Tokens per turn at most."),
  epsilon: inRange(0, 1).describe("GRPO normaliser: ε."),
  std: oneOf(["bessel", "population"] as const satisfies readonly GroupStd[]).describe(
    "GRPO normaliser: std convention.",
  ),
  memCoef: inRange(0, 100).describe("MemPO: weight of the memory advantage."),
  memThreshold: inRange(0, 0.999999).optional().meta({
    description: "MemPO: score only answer tokens with probability above this (0: every token).",
    unset: "every token",
  }),
  memCredit: oneOf(["mempo", "infomem"]).optional().meta({
    description: "MemPO: the memory credit: MemPO's (every memory's R^M pooled per question) or InfoMem's (R^M " +
      "only on trajectories whose outcome is right, A^M = 0 on the others; arXiv:2606.03329).",
    unset: "mempo",
  }),
  joinShare: inRange(0, 1).optional().meta({
    description: "GRPO / MemPO with data.questionOnce: the share of RL questions joined with objectives of other " +
      "training questions of their world (1 to rl.joinMax more, no name shared; as sft.joinShare), whose first turn (the " +
      "extraction of the joined question's open objectives) the scripted teacher writes and RL does not learn: the " +
      "policy then carries memories of more open objectives than any training question asks without reading a " +
      "question of that many. The reward is the joined task's (every objective right). MemPO's P_full for a " +
      "joined task's memories reads the whole history, the long joined question included (no learned turn does).",
    unset: "0",
  }),
  joinMax: int(1).optional().meta({
    description: "Most objectives joined to an RL question (rl.joinShare).",
    unset: String(DEFAULT_JOIN_MAX),
  }),
  vfCoef: inRange(0, 100).describe("PPO: value-loss coefficient."),
  valueClip: inRange(0, 1e6).describe("PPO: value clip range."),
  gamma: inRange(0, 1).describe("PPO: GAE γ."),
  lambda: inRange(0, 1).describe("PPO: GAE λ."),
  checkpointEvery: int(1).describe("Save a checkpoint every this many steps (and at the end)."),
  seed: int(0).optional().meta({
    description: "Seed of the RL steps' questions, sampling and minibatches (the same for every algorithm); " +
      "repeats of RL from one SFT policy differ only here.",
    unset: "the experiment seed",
  }),
});

/** The schema of {@linkcode EvalConfig}: evaluation. */
export const EVAL_CONFIG_SCHEMA = section({
  questions: int(1).describe("Questions per test set to run (≤ data.testCount)."),
  maxTurns: int(1).describe("Turn limit."),
  maxTurnTokens: int(8).describe("Tokens per turn."),
});

/** The schema of {@linkcode ExperimentConfig}: a whole experiment. */
export const EXPERIMENT_CONFIG_SCHEMA = section({
  preset: z.string({ error: "must be a preset name" }).describe("Preset the config starts from (--preset)."),
  name: z.string({ error: "must be letters, digits, '.', '_' or '-'" })
    .regex(/^[\w.-]+$/, { error: "must be letters, digits, '.', '_' or '-'" }).describe("Run name (runs/<name>)."),
  seed: int(0).describe(
    "Seed of the world and its questions, and of SFT and RL unless sft.seed or rl.seed says otherwise.",
  ),
  backend: oneOf(BACKEND_NAMES as [string, ...string[]] as ["wasm", "cpu", "webgpu", "tensorflow", "tensorflow-gpu"])
    .describe("Tensor backend."),
  dataDir: path().describe("Data directory (generated when missing)."),
  release: path().optional().meta({
    description: "The released SFT policy (a folder of the repository, Hugging Face layout and manifest.json) that " +
      "RL starts from, its hashes checked first; unset (or --from-scratch): SFT is trained by the run.",
    unset: "SFT from scratch",
  }),
  model: oneOf(["tiny", "small", "base", "bench"] as const satisfies readonly ModelPresetName[]).describe(
    "Model preset.",
  ),
  data: DATA_CONFIG_SCHEMA.describe("Data generation: the world, its questions and test sets."),
  sft: SFT_CONFIG_SCHEMA.describe("Supervised fine-tuning on teacher demonstrations."),
  rl: RL_CONFIG_SCHEMA.describe("RL, shared by PPO, GRPO and MemPO (each from the SFT weights)."),
  eval: EVAL_CONFIG_SCHEMA.describe("Evaluation on the test sets (greedy)."),
});

/** Data generation (see {@linkcode DATA_CONFIG_SCHEMA} for each field). */
export type DataConfig = z.infer<typeof DATA_CONFIG_SCHEMA>;
/** Supervised fine-tuning on teacher demonstrations (see {@linkcode SFT_CONFIG_SCHEMA}). */
export type SftConfig = z.infer<typeof SFT_CONFIG_SCHEMA>;
/** RL, shared by PPO, GRPO and MemPO (see {@linkcode RL_CONFIG_SCHEMA}). */
export type RlConfig = z.infer<typeof RL_CONFIG_SCHEMA>;
/** Evaluation (see {@linkcode EVAL_CONFIG_SCHEMA}). */
export type EvalConfig = z.infer<typeof EVAL_CONFIG_SCHEMA>;
/** A whole experiment (see {@linkcode EXPERIMENT_CONFIG_SCHEMA}). */
export type ExperimentConfig = z.infer<typeof EXPERIMENT_CONFIG_SCHEMA>;

// The main job: RL (MemPO, GRPO) from the released SFT policy (release/sft), on a task where what to keep is the
// decision SFT leaves open (docs/research/what_to_remember.md). Every field is here, each with why.
const DEFAULT: ExperimentConfig = {
  preset: "default", // what --preset names
  name: "default", // runs/default
  seed: 0, // the released policy's world seed (release/sft/manifest.json): its world, questions and RL
  backend: "wasm", // TF.js on WebAssembly: the CPU backend the package is measured on (docs/performance.md)
  dataDir: "data", // the tools read data/<preset> (presetDataDir)
  release: "release/sft", // RL starts from it after every file's sha256 is checked; --from-scratch trains SFT instead
  model: "small", // 0.9 M parameters: d 128, 4 layers, 4 heads
  data: {
    trainCount: 2000, // RL and the main world's demonstrations never run short of questions
    testCount: 32, // 32 questions a test set: 128 answers at 4 objectives
    testObjectives: [1, 2, 4, 6, 8], // SFT and RL train on 1-4 objectives: 6 and 8 test length generalisation
    // each person is born in one city and lives in another: the plausible wrong fact beside the needed one
    // (docs/research/what_to_remember.md#the-task-a-decision-sft-leaves-open)
    sizes: { distractors: 0, lives: 1 },
    trainObjectives: [1, 2], // the main world's questions (RL's): at 2 only, GRPO's reward was 0 at every step
    // seven worlds of the same names in new roles: facts cannot be memorised, only read
    // (docs/research/sft_recipe.md#reading-not-memorising)
    auxWorlds: 7,
    auxObjectives: [1, 2, 3, 4], // the auxiliary worlds' demonstrations: 6 and 8 objectives stay unseen
    distinctAnswers: true, // every name of a question once, so each copy is a one-word lookup
    questionOnce: true, // the memory context shows the question before the first turn only (MEM1's internal state)
    validCount: 32, // validation sets of held-out training subjects: they choose, the test sets report
  },
  sft: {
    // the released policy's SFT seed: the highest mean validation EM of the seeds run, by deno task release's rule
    // (docs/research/what_to_remember.md#the-released-sft-policy)
    seed: 2,
    steps: 5200, // the released policy's length
    batchSize: 8, // 8 sequences a step: the regime in ~30 minutes (docs/research/default_run.md)
    lr: 2e-3, // the rate the released policy was trained with
    warmupSteps: 20, // the rate's linear start
    demos: 3200, // half under each context policy
    // the cold start keeps the wrong city 30 % of the time where the results hold both: behaviour cloning's
    // imperfect memory, which RL is to improve; every other step of the teacher is exact
    dropProbability: 0.3,
    teacherMemory: "state-relations-bare", // the open objectives, then the answers found: the same work every turn
    // the induction warm-up: at least 450 steps, ended by its loss (pretrainLoss) by 750
    // (docs/research/paper_regime.md#the-induction-warm-up)
    pretrainSteps: 450,
    pretrainHorizon: 750, // the warm-up's cosine ends here: the head forms while the rate is still high
    pretrainLoss: 1, // a formed induction head's copy loss is under 0.5, none 3-5
    recallSteps: 200, // then the recall warm-up: a fact found by its (subject, relation) pair, ended by its loss
    recallHorizon: 1500, // the recall warm-up's last step at most
    recallLoss: 0.3, // under ln 2 (a guess between a subject's two facts): the pair is read
    inductionMix: 0.25, // induction sequences kept in the SFT pool, a quarter of the demonstrations
    horizons: [1300, 1950, 2600, 3900], // the cosine restarts at these steps (the read forms late)
    joinShare: 0.5, // half the memory demonstrations are training questions joined into longer open lists
    drillMix: 2, // the first turn's extraction drilled on random names, twice the demonstrations' sequences
    drillFrom: 3900, // the drill joins once the read has formed: from the first step it keeps the read from forming
  },
  rl: {
    algorithms: ["mempo", "grpo"], // each from the SFT weights
    // half as many steps again as 72: more validation EM of both algorithms over three RL seeds, and RL is most of the
    // main job's 30 minutes (docs/research/what_to_remember.md#more-rl-steps-over-three-rl-seeds)
    steps: 108,
    questionsPerStep: 4, // 4 × G = 32 episodes a step
    groupSize: 8, // G = 8 rollouts a question (verl's default n): room for both choices at each decision
    lr: 5e-5, // chosen on the training reward (docs/research/rl_budget.md#how-the-rl-learning-rate-was-chosen)
    criticLr: 1e-3, // PPO's critic
    // the pull to the SFT policy: 0.05 had the best mean validation EM of both algorithms against verl's example 0.001
    // and 0.01 over three RL seeds (docs/research/what_to_remember.md#the-pull-to-the-sft-policy-over-three-rl-seeds)
    klCoef: 0.05,
    klEstimator: "low_var_kl", // verl's default
    clipLow: 0.2, // PPO's ε
    clipHigh: 0.2, // symmetric, as PPO's paper
    ppoEpochs: 1, // one update per batch: on-policy
    miniBatchSize: 16, // turn sequences per update
    maxGradNorm: 1, // verl's grad_clip
    temperature: 1, // rollouts sample the policy as it is
    maxTurns: 16, // a joined task of up to 4 + 2 objectives: a search per hop (12 at most) and the answer
    maxTurnTokens: 64, // also caps the teacher's turns in the SFT demonstrations
    epsilon: 1e-6, // verl's GRPO normaliser
    std: "bessel", // verl's
    // A^M at a tenth of the outcome advantage: at MemPO's 1 the memory credit collapses the policy from the release;
    // 0.1 had the best mean validation EM against 0.03 and 0.3 over five RL seeds
    // (docs/research/what_to_remember.md#mempos-weight-over-five-rl-seeds)
    memCoef: 0.1,
    // MemPO's code keeps the answer tokens the model gives probability > 0.5
    // (docs/research/memory_advantage.md#the-answer-confidence-threshold)
    memThreshold: 0.5,
    vfCoef: 0.5, // PPO's value loss
    valueClip: 0.5, // verl's cliprange_value
    gamma: 1, // PPO's GAE: the outcome reward undiscounted
    lambda: 0.95, // GAE's λ, PPO paper's value
    checkpointEvery: 8, // nine checkpoints an algorithm: a kill loses at most a minute or two
    // half the RL tasks are training questions joined to 2-4 objectives
    // (docs/research/paper_regime.md#rl-on-joined-tasks-rljoinshare)
    joinShare: 0.5,
    joinMax: 4, // 1-4 objectives joined to a question (validateConfig: their searches fit rl.maxTurns)
  },
  eval: {
    questions: 32, // every test question
    maxTurns: 24, // 8 objectives: a search per hop (16 at most) and the answer
    maxTurnTokens: 96, // more than training's 64: 6- and 8-objective memories are longer
  },
};

// CI's check of the whole pipeline in ~2 minutes: SFT from scratch on a small world of 1-objective questions, so the
// policy gets rewards that RL can raise within a few steps (docs/research/rl_budget.md#the-quick-presets-check-in-ci).
const QUICK: ExperimentConfig = {
  preset: "quick", // what --preset names
  name: "quick", // runs/quick
  seed: 0, // CI reads one draw
  backend: "wasm", // as the default
  dataDir: "data", // the tools read data/<preset> (presetDataDir)
  model: "small", // the default's model: the same code paths, a smaller task
  data: {
    trainCount: 300, // enough questions for 200 demonstrations and 8 RL steps
    testCount: 4, // four questions a test set: seconds of evaluation
    testObjectives: [1, 2, 4], // 2 and 4 objectives unseen in training
    trainObjectives: 1, // 1-objective questions: SFT learns them in 100 steps
    sizes: { countries: 2, cities: 4, people: 8, companies: 4, films: 4, distractors: 0 }, // a world read in seconds
    validCount: 4, // validation sets: what deno task train --stage sft reports and release chooses by
  },
  sft: {
    steps: 100, // SFT's loss is below 0.1 by then on this world
    batchSize: 16, // 1,600 sequences drawn over the 100 steps
    lr: 3e-3, // a short schedule: a higher rate than the default's
    warmupSteps: 10, // the rate's linear start
    demos: 200, // half under each context policy
    dropProbability: 0.3, // as the default: the imperfect memory RL is to improve
    teacherMemory: "state-relations", // the open objectives with ';' between them, then the answers found
    pretrainSteps: 0, // no induction warm-up: 1-objective answers are read within SFT
    inductionMix: 0, // no warm-up: nothing to keep
  },
  rl: {
    algorithms: ["mempo", "grpo"], // the comparison the package is about
    steps: 8, // enough for the training reward to move
    questionsPerStep: 4, // 16 episodes a step
    groupSize: 4, // G = 4: GRPO and MemPO have a group to normalise
    // at 5e-5 GRPO's second-half training reward fell below its first
    // (docs/research/rl_budget.md#the-quick-presets-check-in-ci)
    lr: 1e-4,
    criticLr: 1e-3, // as the default, and so on for the update's settings
    klCoef: 0.001,
    klEstimator: "low_var_kl",
    clipLow: 0.2,
    clipHigh: 0.2,
    ppoEpochs: 1,
    miniBatchSize: 16,
    maxGradNorm: 1,
    temperature: 1,
    maxTurns: 8, // a 1-objective question needs three turns at most (two searches, the answer)
    maxTurnTokens: 48, // 1-objective turns are short
    epsilon: 1e-6, // verl's GRPO normaliser, as the default
    std: "bessel",
    memCoef: 1, // MemPO's A^M weighs as the outcome advantage
    memThreshold: 0.5, // as the default
    vfCoef: 0.5, // PPO's settings, as the default
    valueClip: 0.5,
    gamma: 1,
    lambda: 0.95,
    checkpointEvery: 2, // a checkpoint every second step: CI's resume tests have several to resume from
  },
  eval: {
    questions: 4, // every test question
    maxTurns: 12, // 4 two-hop objectives: 8 searches and the answer, room to spare
    maxTurnTokens: 64, // more than RL's 48: 2- and 4-objective memories are longer
  },
};

/** Preset names. */
export type ExperimentPresetName = "default" | "quick";

/**
 * The presets: `default` (RL from the released SFT policy on the paper's regime, ~30 minutes on 2 CPU cores;
 * docs/research/what_to_remember.md) and `quick` (CI's whole pipeline on a small world, ~2 minutes).
 */
export const PRESETS: Readonly<Record<ExperimentPresetName, ExperimentConfig>> = Object.freeze({
  default: DEFAULT,
  quick: QUICK,
});

/** A deep partial of the config, for overrides from flags or `--config run.json`. */
export type ConfigOverrides = {
  [K in keyof ExperimentConfig]?: ExperimentConfig[K] extends object ? Partial<ExperimentConfig[K]>
    : ExperimentConfig[K];
};

const isSection = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Overrides applied to a config section by section: a section (an object)
 * merges field by field into the same section of `base`, anything else
 * (numbers, strings, lists, null) replaces; `undefined` leaves the field.
 * The one merge rule of presets, `--resume`/`--from` configs and `--config` files.
 *
 * Source: nanoGPT `configurator.py` (overrides on top of defaults), one level deep as in TRL's nested configs.
 *
 * @param base The config (or partial config) to start from; not modified.
 * @param overrides Fields to change.
 * @returns A new object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeSections } from "./experiment.ts";
 *
 * const merged = mergeSections({ seed: 0, rl: { lr: 1, steps: 2 } }, { rl: { lr: 3 }, seed: undefined });
 * assert.deepEqual(merged, { seed: 0, rl: { lr: 3, steps: 2 } });
 * ```
 */
export function mergeSections(
  base: Readonly<Record<string, unknown>>,
  overrides: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    const cur = merged[k];
    if (isSection(v) && isSection(cur)) merged[k] = { ...cur, ...v };
    else if (v !== undefined) merged[k] = v;
  }
  return merged;
}

/**
 * Where the tasks keep a preset's data when no directory is given: `data/<preset>`,
 * so the presets' data never overwrite each other (`deno task data --preset quick`
 * writes `data/quick`, which `deno task train --preset quick` then reads).
 *
 * ```text
 * presetDataDir(p) = "data/" + p
 * ```
 *
 * Source: nanoGPT `data/<dataset>/` (one folder per dataset).
 *
 * @param preset The preset's name.
 * @returns The directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { presetDataDir } from "./experiment.ts";
 *
 * assert.equal(presetDataDir("quick"), "data/quick");
 * ```
 */
export function presetDataDir(preset: string): string {
  return `data/${preset}`;
}

/**
 * The value at a dotted path of a config (or any JSON value): `rl.lr` is
 * `config.rl.lr`; undefined where a step is missing.
 *
 * Source: this package (the dotted field paths of `--help-config`, error messages and branch checks).
 *
 * @param x The config.
 * @param path Dotted path (`rl.lr`).
 * @returns The value, or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PRESETS, valueAt } from "./experiment.ts";
 *
 * assert.equal(valueAt(PRESETS.quick, "rl.steps"), 8);
 * assert.equal(valueAt(PRESETS.quick, "rl.nope.deeper"), undefined);
 * ```
 */
export function valueAt(x: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], x);
}

/**
 * The teacher's memory format of a run: `sft.teacherMemory`, or
 * {@linkcode DEFAULT_TEACHER_MEMORY} when the config leaves it out. SFT's
 * demonstrations, the evaluated teacher and the diagnostics all read it here.
 *
 * Source: this package (the config's one default for the teacher's memory).
 *
 * @param config The experiment config.
 * @returns The memory format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PRESETS, teacherMemory } from "./experiment.ts";
 *
 * const { teacherMemory: _, ...sft } = PRESETS.quick.sft;
 * assert.equal(teacherMemory({ ...PRESETS.quick, sft }), "state-relations");
 * assert.equal(teacherMemory(PRESETS.default), "state-relations-bare");
 * ```
 */
export function teacherMemory(config: ExperimentConfig): MemoryFormat {
  return config.sft.teacherMemory ?? DEFAULT_TEACHER_MEMORY;
}

/**
 * The seed of a run's SFT stage: `sft.seed`, or the experiment seed when
 * the config leaves it out. The policy's initialisation, the warm-up, the
 * demonstrations' draws, the drills and SFT's batches all read it
 * here; the data (world, questions, tokenizer) and RL do not.
 *
 * Source: this package (as `rl.seed` separates RL repeats from the SFT weights).
 *
 * @param config The experiment config.
 * @returns The SFT seed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig, sftSeed } from "./experiment.ts";
 *
 * assert.equal(sftSeed(resolveConfig("quick", { seed: 3 })), 3);
 * assert.equal(sftSeed(resolveConfig("quick", { seed: 3, sft: { seed: 5 } })), 5);
 * ```
 */
export function sftSeed(config: ExperimentConfig): number {
  return config.sft.seed ?? config.seed;
}

/**
 * A preset with overrides applied (nested sections merged), validated.
 *
 * Source: nanoGPT `config/*.py` presets + overrides; TRL config validation.
 *
 * @param preset Preset name.
 * @param overrides Fields to change.
 * @returns A new, validated config.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "./experiment.ts";
 *
 * assert.equal(resolveConfig("quick", { rl: { steps: 2 } }).rl.steps, 2);
 * assert.throws(() => resolveConfig("quick", { rl: { lr: -1 } }), /rl.lr must be > 0, current value is -1/);
 * ```
 */
export function resolveConfig(preset: string, overrides: ConfigOverrides = {}): ExperimentConfig {
  const base = PRESETS[preset as ExperimentPresetName];
  if (base === undefined) {
    throw new UsageError(
      `Invalid config: preset must be one of ${Object.keys(PRESETS).join(", ")}, current value is ${showValue(preset)}`,
    );
  }
  if (!isSection(overrides)) {
    throw new UsageError(
      `Invalid config: the overrides must be an object of fields, current value is ${showValue(overrides)}`,
    );
  }
  const merged = mergeSections(structuredClone(base) as unknown as Record<string, unknown>, overrides);
  if (overrides.name === undefined && overrides.preset === undefined) merged.name = base.name;
  return validateConfig(merged);
}

/**
 * A value as the user wrote it, for error messages: numbers as JavaScript
 * prints them (`Infinity`, not JSON's `null`), the rest as JSON, cut at 80
 * characters.
 */
function showValue(v: unknown): string {
  const show = (x: unknown): string => {
    if (typeof x === "number" || typeof x === "bigint" || x === undefined) return String(x);
    if (Array.isArray(x)) return `[${x.map(show).join(", ")}]`;
    if (typeof x === "object" && x !== null) {
      return `{${Object.entries(x).map(([k, y]) => `${JSON.stringify(k)}: ${show(y)}`).join(", ")}}`;
    }
    return JSON.stringify(x);
  };
  const text = show(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, k) =>
      typeof k === "number"
        ? `${acc}[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(k))
        ? `${acc}${acc ? "." : ""}${String(k)}`
        : `${acc}[${JSON.stringify(String(k))}]`,
    "",
  );
}

/** One zod issue as the house's message: `<field> <rule>, current value is <value>`. */
function issueMessage(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[] = []): string {
  const path = [...prefix, ...issue.path];
  if (issue.code === "unrecognized_keys") return `unknown field ${fieldPath([...path, issue.keys[0]!])}`;
  if (issue.code === "invalid_union") {
    // the branch that got past the type check says what is wrong (a list's bad element, an integer's range)
    const branch = issue.errors.find((b) =>
      b.length > 0 && !(b[0]!.code === "invalid_type" && b[0]!.path.length === 0)
    );
    if (branch) return issueMessage(branch[0]!, path);
  }
  const where = path.length === 0 ? "the config" : fieldPath(path);
  if (issue.input === undefined && issue.code === "invalid_type") return `${where} is missing (it ${issue.message})`;
  return `${where} ${issue.message}, current value is ${showValue(issue.input)}`;
}

/**
 * Checks every field against {@linkcode EXPERIMENT_CONFIG_SCHEMA} (types,
 * ranges, unknown keys at every depth, sections that are not objects), then
 * the rules between fields (world sizes, joined tasks, drills, warm-up horizons, evaluation questions);
 * throws a {@linkcode UsageError} naming the first bad field and its value as
 * given. Returns the input itself (not a copy), so the config's key order and
 * its absent optional fields stay as they were.
 *
 * Source: TRL `GRPOConfig.__post_init__` (explanatory validation); zod strict objects.
 *
 * @param c The config (any JSON value).
 * @returns The same config, typed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PRESETS, validateConfig } from "./experiment.ts";
 *
 * assert.throws(() => validateConfig({ ...PRESETS.quick, rl: { ...PRESETS.quick.rl, groupSize: 0 } }), /rl.groupSize must be an integer ≥ 1, current value is 0/);
 * assert.throws(() => validateConfig({ ...PRESETS.quick, rl: { ...PRESETS.quick.rl, lr: 1e999 } }), /rl.lr must be > 0, current value is Infinity/);
 * assert.throws(() => validateConfig({ ...PRESETS.quick, eval: null }), /eval must be an object of fields, current value is null/);
 * assert.throws(() => validateConfig({ ...PRESETS.quick, data: { ...PRESETS.quick.data, sizes: { films: 4, cats: 2 } } }), /unknown field data.sizes.cats/);
 * ```
 */
export function validateConfig(c: unknown): ExperimentConfig {
  const parsed = EXPERIMENT_CONFIG_SCHEMA.safeParse(c, { reportInput: true });
  if (!parsed.success) {
    // an unknown key first: a misspelt field explains the others
    const issues = [...parsed.error.issues].sort((a, b) =>
      Number(b.code === "unrecognized_keys") - Number(a.code === "unrecognized_keys")
    );
    throw new UsageError(`Invalid config: ${issueMessage(issues[0]!)}`);
  }
  const config = c as ExperimentConfig;
  const fail = (message: string): never => {
    throw new UsageError(`Invalid config: ${message}`);
  };
  if ((config.sft.joinShare ?? 0) > 0 && !config.data.questionOnce) {
    fail(
      `sft.joinShare > 0 needs data.questionOnce (a joined question, longer than training's, must stay out of ` +
        `every learned turn's context); current values are sft.joinShare ${config.sft.joinShare}, ` +
        `data.questionOnce ${config.data.questionOnce}`,
    );
  }
  if ((config.rl.joinShare ?? 0) > 0) {
    const why = "current values are rl.joinShare " + config.rl.joinShare;
    if (!config.data.questionOnce) {
      fail(
        `rl.joinShare > 0 needs data.questionOnce (no learned turn may read the joined question, longer than ` +
          `training's); ${why}, data.questionOnce ${config.data.questionOnce}`,
      );
    }
    // a joined task has up to joinMax + the longest training question's objectives, each a search at least, and the
    // answer: with fewer turns the largest joins cannot end, their groups all 0 (GRPO's advantage 0, rollouts wasted)
    const longest = Math.max(...[config.data.trainObjectives ?? 2].flat()); // unset: 2
    const joinMax = config.rl.joinMax ?? DEFAULT_JOIN_MAX;
    if (config.rl.maxTurns < joinMax + longest + 1) {
      fail(
        `rl.joinShare > 0 needs rl.maxTurns ≥ rl.joinMax + the most objectives of a training question + 1 (a search ` +
          `per objective and the answer): ${joinMax} + ${longest} + 1 = ${joinMax + longest + 1}; ${why}, ` +
          `rl.maxTurns ${config.rl.maxTurns}, rl.joinMax ${config.rl.joinMax ?? `unset (${DEFAULT_JOIN_MAX})`}, ` +
          `data.trainObjectives ${JSON.stringify(config.data.trainObjectives)}`,
      );
    }
    if (config.rl.algorithms.includes("ppo")) {
      fail(
        `rl.joinShare > 0 needs rl.algorithms without ppo (GAE runs over every turn, the teacher's first one ` +
          `included); ${why}, rl.algorithms ${JSON.stringify(config.rl.algorithms)}`,
      );
    }
  }
  if (config.sft.drillFrom !== undefined && !((config.sft.drillMix ?? 0) > 0)) {
    fail(
      `sft.drillFrom needs sft.drillMix > 0 (it says when the drills join the pool); current values are ` +
        `sft.drillFrom ${config.sft.drillFrom}, sft.drillMix ${config.sft.drillMix}`,
    );
  }
  if (config.sft.drillFrom !== undefined && config.sft.drillFrom >= config.sft.steps) {
    fail(`sft.drillFrom must be < sft.steps (${config.sft.steps}), current value is ${config.sft.drillFrom}`);
  }
  const horizons = config.sft.horizons ?? [];
  horizons.forEach((h, i) => {
    if (h >= config.sft.steps || (i > 0 && h <= horizons[i - 1]!)) {
      fail(
        `sft.horizons must ascend, each below sft.steps (${config.sft.steps}); current value is ` +
          `${JSON.stringify(horizons)}`,
      );
    }
  });
  if (config.sft.pretrainHorizon !== undefined && config.sft.pretrainHorizon < (config.sft.pretrainSteps ?? 0)) {
    fail(
      `sft.pretrainHorizon must be ≥ sft.pretrainSteps (${config.sft.pretrainSteps}), current value is ` +
        `${config.sft.pretrainHorizon}`,
    );
  }
  const warmup = config.sft.pretrainSteps ?? 0;
  if (config.sft.pretrainLoss !== undefined && warmup > 0 && (config.sft.pretrainHorizon ?? warmup) <= warmup) {
    fail(
      `sft.pretrainHorizon must be > sft.pretrainSteps (${warmup}) with sft.pretrainLoss set, current value is ` +
        `${config.sft.pretrainHorizon ?? "unset"}`,
    );
  }
  const recall = config.sft.recallSteps ?? 0;
  if ((config.sft.recallHorizon ?? recall) < recall) {
    fail(`sft.recallHorizon must be ≥ sft.recallSteps (${recall}), current value is ${config.sft.recallHorizon}`);
  }
  if (config.sft.recallLoss !== undefined && recall > 0 && (config.sft.recallHorizon ?? recall) <= recall) {
    fail(
      `sft.recallHorizon must be > sft.recallSteps (${recall}) with sft.recallLoss set, current value is ` +
        `${config.sft.recallHorizon ?? "unset"}`,
    );
  }
  let sizes;
  try {
    sizes = worldSizes(config.data.sizes ?? {});
  } catch (e) {
    fail(`data.sizes: ${(e as Error).message.replace(/^Invalid world size: /, "")}`);
  }
  const most = Math.max(...[config.data.trainObjectives ?? 2, config.data.testObjectives].flat());
  const subjects = testSubjectCount(sizes!);
  if (subjects < most) {
    fail(
      `data.sizes give ${subjects} test subjects, too few for ${most}-objective questions (data.testObjectives, data.trainObjectives): enlarge the world`,
    );
  }
  if (config.eval.questions > config.data.testCount) {
    fail(`eval.questions (${config.eval.questions}) must be ≤ data.testCount (${config.data.testCount})`);
  }
  const { validCount = 0 } = config.data;
  if (validCount > 0 && config.eval.questions > validCount) {
    fail(`eval.questions (${config.eval.questions}) must be ≤ data.validCount (${validCount}) when it is set`);
  }
  return config;
}

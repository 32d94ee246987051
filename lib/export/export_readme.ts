/**
 * The README of an export folder: what it holds, what to run on verl, what is
 * checked equal to the package, and which part of MemPO needs verl's agent
 * loop extended.
 *
 * @module
 */

/** What the README describes. */
export interface ExportReadmeInfo {
  /** The verl release the files are written for. */
  verlVersion: string;
  /** Where the export comes from (`runs/NAME` or a data directory). */
  source: string;
  /** The checkpoint exported as `model/` (`sft`, `mempo`, …), or undefined (data only). */
  checkpoint?: string;
  /** Algorithms with a `config/<algorithm>.overrides` file. */
  algorithms: string[];
  /** Training questions, test sets and documents. */
  counts: { train: number; tests: Record<string, number>; documents: number };
  /** The memory context shows the question before the first turn only (`data.questionOnce`). @default false */
  questionOnce?: boolean;
  /** Share of the RL questions this run joined into longer tasks (`rl.joinShare`). @default 0 */
  joinShare?: number;
}

/**
 * The export's README.md.
 *
 * Source: this package (verl v0.7.0's `main_ppo` entry point, `ToolAgentLoop`, reward and estimator hooks).
 *
 * @param info What was exported.
 * @returns Markdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exportReadme } from "./export_readme.ts";
 *
 * const md = exportReadme({ verlVersion: "0.7.0", source: "runs/x", checkpoint: "sft", algorithms: ["mempo"], counts: { train: 3, tests: { test_1obj: 2 }, documents: 5 } });
 * assert.match(md, /verl 0\.7\.0/);
 * assert.match(md, /bash config\/run\.sh mempo/);
 * assert.doesNotMatch(md, /questionOnce/);
 * assert.match(exportReadme({ verlVersion: "0.7.0", source: "runs/x", algorithms: [], counts: { train: 3, tests: {}, documents: 5 }, questionOnce: true }), /no question, as MEM1/);
 * assert.doesNotMatch(md, /joined/);
 * assert.match(exportReadme({ verlVersion: "0.7.0", source: "runs/x", algorithms: [], counts: { train: 3, tests: {}, documents: 5 }, joinShare: 0.5 }), /RL joined 50 % of its questions/);
 * ```
 */
export function exportReadme(info: ExportReadmeInfo): string {
  const v = info.verlVersion;
  const tests = Object.entries(info.counts.tests).map(([k, n]) => `${k} (${n})`).join(", ");
  const model = info.checkpoint === undefined
    ? "- no `model/`: this export was made from a data directory alone; set `actor_rollout_ref.model.path` yourself."
    : `- \`model/\`: the \`${info.checkpoint}\` policy of ${info.source} as a Hugging Face \`LlamaForCausalLM\` folder ` +
      "(`config.json`, `generation_config.json`, `model.safetensors`, `tokenizer.json`, `tokenizer_config.json` with " +
      "the chat template, `special_tokens_map.json`); `AutoModelForCausalLM`, `AutoTokenizer`, verl and vLLM load it.";
  const runs = info.algorithms.map((a) => `bash config/run.sh ${a}`).join("\n");
  const joinShare = info.joinShare ?? 0;
  const joined = joinShare > 0
    ? `
**This run's RL joined ${
      Math.round(joinShare * 100)
    } % of its questions into longer tasks** (\`rl.joinShare\`): a training question
with other training questions' objectives, whose first turn (the open list) the scripted teacher wrote and which
got no loss. \`data/train.parquet\` holds the questions unjoined, and verl's agent loop has no scripted first turn,
so RL here sees the unjoined questions, as the package's \`rl.joinShare\` 0 does.
`
    : "";
  return `# mempo-lab experiment for verl ${v}

Exported from \`${info.source}\` by \`deno task export-verl\`. Written for **verl ${v}** (its published
\`verl/trainer/config/_generated_ppo_trainer.yaml\`: every key in \`config/*.overrides\` exists there).

## What is here

- \`data/\`: \`train.parquet\` (${info.counts.train} questions) and the test sets ${tests} in verl's schema
  (\`prompt\`, \`data_source\`, \`ability\`, \`reward_model.ground_truth.target\` = aliases per objective,
  \`extra_info\` = split, index, objectives, hops); \`corpus.parquet\` and \`corpus.jsonl\` (${info.counts.documents}
  documents, Search-R1's \`{"id", "contents"}\`).
${model}
- \`mempo_verl/\` (Python, needs only \`torch\`; verl is imported only when installed): \`compute_score\` (the outcome
  reward: format gate, exact match per objective, F1 and EM as extra fields), \`memory_reward\` (P_mem − P_full),
  \`compute_mempo_advantage\` (GRPO per trajectory + the memory advantage on \`<mem>\` spans, with this run's options),
  the \`<search>\` tool parser and the search tool. With verl installed, importing it registers the estimators
  \`mempo\` and \`mempo_grpo\`, the tool parser \`mempo_search\` and \`mempo_verl.verl_hooks.MempoSearchTool\`.
- \`reward_fn.py\`: the file verl's \`custom_reward_function.path\` points to.
- \`config/\`: \`<algorithm>.overrides\` (Hydra \`key=value\` lines, each under a comment naming the mempo-lab field it
  comes from, then what verl has no key for), \`mempo.json\` (MemPO's settings, read by \`mempo_verl\`),
  \`tool_config.yaml\` (the search tool) and \`run.sh\`.

## What to run

\`\`\`sh
pip install "verl==${v}" vllm          # on the cluster; mempo_verl itself needs only torch
cd <this folder>
# 1. the retrieval server (from a mempo-lab checkout, Deno 2.9): the package's BM25, Search-R1's POST /retrieve
deno task serve-search <this folder> --port 8000 &
# 2. RL from the exported policy, one of:
${runs}
\`\`\`

\`config/run.sh\` sets \`MEMPO_EXPORT\` to this folder (every path in the overrides is written
\`\${oc.env:MEMPO_EXPORT}/…\`; the script puts the absolute path in its place, so the folder's path must have no
spaces) and \`PYTHONPATH\`, then runs \`python3 -m verl.trainer.main_ppo\` with the overrides; append your own
(\`trainer.n_gpus_per_node=8\`, a bigger \`data.train_batch_size\`, a 7B \`actor_rollout_ref.model.path\` …).
The tool reads \`retrieval_service_url\` from \`config/tool_config.yaml\` (default \`http://127.0.0.1:8000/retrieve\`).

## What runs on verl as it is, and what does not

verl's \`ToolAgentLoop\` runs GRPO (and PPO) here unchanged: the chat template's generation prompt is
\`<|assistant|> <mem>\`, so every turn starts with the forced \`<mem>\` (after a tool message too); generation stops at
\`</search>\`, \`</answer>\` or \`<|end|>\` (\`generation_config.json\`); the parser \`mempo_search\` turns a well-formed
\`<search> q </search>\` turn into a call of the search tool, whose \`<information>\` block is the package's; the
reward manager calls \`compute_score\` on the decoded response. That loop keeps **the whole history** in the
context: it is this package's \`full\` context policy (ReAct), token for token.

**MemPO needs verl's agent loop extended** (verl has no context management yet; see verl issue #5375). This
cannot be run here, and the parts are:

1. **The forced \`<mem>\`**: done by the chat template (nothing to add).
2. **The memory context policy** (this package's \`buildContext(…, { policy: "memory" })\`, MemPO's
   \`prepare_prompt\`): before each generation the prompt must be rebuilt as system + question + only the latest
   turn and its tool result${
    info.questionOnce
      ? " (this run sets `data.questionOnce`: after the first turn, system + only the latest turn and its tool " +
        "result, no question, as MEM1's internal state)"
      : ""
  }, e.g. \`tokenizer.apply_chat_template([system, user, {"role": "assistant", "content":
   "<mem> " + last_turn}, {"role": "tool", "content": last_information}], add_generation_prompt=True)\`, instead of
   appending to \`prompt_ids\`. Because each turn is then sampled under its own context, the loop must emit **one
   row per turn** (prompt = that context, response = the turn's tokens, \`response_mask\` 1 on them), with
   \`uid\` = the question and \`traj_uid\` = the trajectory, and the outcome score on the last token of the
   trajectory's final row: \`compute_mempo_advantage\` takes this layout (\`traj_index\`) and normalises over
   trajectories, not rows.
3. **The extra scoring forwards for P_mem / P_full**: for every turn t ≥ 2 with a \`<mem>\` span, two teacher-forced
   sequences scored with the rollout weights, no gradient (verl: the actor's \`compute_log_prob\` on a 2N-row batch):
   memory context = system + question + \`<|assistant|> <mem> m_t </mem>\`; full context = the whole history before
   turn t + \`<|assistant|> <mem> m_t </mem>\`; continuation = \`<think> answer </think> <answer> g1 ; g2 </answer>\`
   (first alias of each objective), answer mask 1 on the gold tokens. \`mempo_verl.memory_reward(mem_log_probs,
   full_log_probs, answer_mask, threshold)\` gives R^M.
4. **Hand them to the estimator**: put \`memory_rewards\` \`[B, K]\` (R^M of turn k, NaN where none) and
   \`memory_span_ids\` \`[B, T]\` (k on turn k's \`<mem>\` content and \`</mem>\`, −1 elsewhere) in \`data.batch\`.
   verl's \`compute_advantage\` passes a registered estimator only \`token_level_rewards\`, \`response_mask\`,
   \`index\` and \`config\`; importing \`mempo_verl\` in the trainer process (\`reward_fn.py\` does it) wraps it so
   that \`algorithm.adv_estimator=mempo\` receives these fields.

Until then, \`config/mempo.overrides\` runs only with such a loop (the estimator says what is missing); the
\`grpo\` overrides run now, with the full context.
${joined}
## Checked equal to mempo-lab (its test suite, tests/export/)

- \`compute_score\` = the package's outcome reward (same verdict, score, EM and F1 per objective) on every case of
  its reward and format tests and on generated and malformed rollouts decoded as verl decodes them.
- \`memory_reward\`, \`group_advantages\`, \`memory_advantages\`, \`combine_advantages\`, \`compute_mempo_advantage\` =
  the package's on the lessons' golden and edge cases (≤ 1e-9 relative in float64).
- the retrieval server = the in-process search, document for document, for every hop of every training question.
- \`model/\` run by a PyTorch forward written from Hugging Face's Llama (RMSNorm, \`rotate_half\` RoPE, SwiGLU, tied
  head), configured only from \`config.json\`, gives the package's logits (≤ 1e-4); \`tokenizer.json\` read by
  Hugging Face's tokenizers gives the package's ids on the task text.
`;
}

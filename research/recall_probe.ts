// `deno run -A research/recall_probe.ts RUN [--policy sft|mempo|grpo|ppo] [--count N]`: does a run's policy still do
// the recall warm-up's pair read (lib/train/recall_task.ts) after SFT? On fresh recall sequences (facts `s r o .` of
// random words, each subject with two relations; questions `s r`), teacher-forced greedy, each question's object
// sorted by what the policy predicts: the fact asked (the pair read), the subject's other fact (a read by the subject
// alone), another subject's fact of the same relation (a read by the relation alone), or any other word.
import { readRunConfig } from "../lib/config/run_config.ts";
import { runTask } from "../lib/cli/task.ts";
import { openRun, POLICY_FLAG } from "../lib/pipeline/open_run.ts";
import { recallTaskSequences } from "../lib/train/recall_task.ts";
import { RECALL_OUTCOMES, type RecallOutcome, recallOutcomes } from "./diagnostics/recall_outcomes.ts";
import { teacherForcedArgmaxes } from "./diagnostics/teacher_forced.ts";

const TASK = {
  name: "deno run -A research/recall_probe.ts",
  summary: "the recall warm-up's pair read by a run's policy: on fresh recall sequences, what it predicts at each " +
    "question's object (the fact asked, the subject's other fact, the relation's other subject, another word).",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME)" }],
  flags: {
    policy: POLICY_FLAG,
    count: { type: "integer", min: 1, default: 400, help: "recall sequences (3 questions each)" },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const dir = positionals[0]!;
  const config = await readRunConfig(dir);
  const { data, load } = await openRun(dir, config);
  const model = await load(flags.policy);
  try {
    // a seed no warm-up draws (the warm-up's are the SFT seed's)
    const sequences = recallTaskSequences(data.tokenizer, { count: flags.count, seed: 7_000_003 });
    const [predicted] = await teacherForcedArgmaxes(model, data.tokenizer, sequences, [[]]);
    const end = data.tokenizer.special("<|end|>");
    const counts = Object.fromEntries(RECALL_OUTCOMES.map((o) => [o, 0])) as Record<RecallOutcome, number>;
    sequences.forEach((s, n) => recallOutcomes(s, predicted![n]!, end).forEach((o) => counts[o] += 1));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(
      `${dir} (${flags.policy}): recall questions ${total}  ` +
        RECALL_OUTCOMES.map((o) => `${o} ${counts[o]} (${(counts[o] / total).toFixed(2)})`).join("  "),
    );
  } finally {
    model.dispose();
  }
});

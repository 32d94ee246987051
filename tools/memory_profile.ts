// `deno run -A tools/memory_profile.ts runs/NAME [--pool question|turn] [--steps 6] [--policy sft|mempo|grpo]
// [--coverage]`:
// MemPO's memory reward and advantage by turn index for the rollouts of a run's policy (SFT by default; the first RL
// steps' questions and sampling seeds of `rl.seed` / `seed`, 8 questions × 4 samples a step, memory context, threshold
// as configured). Prints mean R^M, A^M and <mem> span length per turn, the correlation of span length with A^M, the
// token-weighted mean A^M (the numbers on the question pool's turn-index confound in
// docs/research/memory_advantage.md#the-mechanism-a-turn-index-confound-and-token-weighting), and the memories that
// repeat the previous turn's word for word (stale: the new document's fact was not kept) against the rest.
import { createRng, hashSeed } from "../lib/random.ts";
import { runEpisodes } from "../lib/env/rollout.ts";
import { modelPolicy } from "../lib/env/model_policy.ts";
import { readRunConfig } from "../lib/config/run_config.ts";
import { runTask } from "../lib/cli/task.ts";
import { openRun, POLICY_FLAG } from "../lib/pipeline/open_run.ts";
import { drawQuestions } from "../lib/train/rl_trainer.ts";
import { computeMemoryCredit } from "../lib/train/memory_credit.ts";

const TASK = {
  name: "deno run -A tools/memory_profile.ts",
  summary: "MemPO's memory reward and advantage by turn index for the rollouts of a run's policy (the first RL " +
    "steps' questions and sampling seeds, 8 questions × 4 samples a step, memory context).",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME)" }],
  flags: {
    pool: {
      type: "string",
      choices: ["question", "turn"],
      default: "question",
      value: "NAME",
      help: "memory-reward pool",
    },
    steps: { type: "integer", min: 1, default: 6, help: "RL steps' worth of rollouts" },
    policy: POLICY_FLAG,
    coverage: { type: "boolean", help: "P_mem and P_full times the share of answer tokens above the threshold" },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const dir = positionals[0]!;
  const pool = flags.pool as "question" | "turn";
  const steps = flags.steps;
  const stage = flags.policy;
  const config = await readRunConfig(dir);
  const { data, load } = await openRun(dir, config);
  const policy = await load(stage);
  const seed = config.rl.seed ?? config.seed;
  const byTurn = new Map<number, { r: number[]; a: number[]; len: number[] }>();
  const spans: { len: number; a: number }[] = [];
  const stale = { r: [] as number[], a: [] as number[], zero: 0 };
  const fresh = { r: [] as number[], a: [] as number[], zero: 0 };
  for (let step = 0; step < steps; step++) {
    const rng = createRng(hashSeed(seed, 0x5eed, step));
    const tasks = drawQuestions(data, 8, rng).flatMap((t) => [t, t, t, t]);
    const episodes = await runEpisodes(
      modelPolicy(policy, { padId: data.tokenizer.padId, temperature: 1 }),
      tasks,
      data,
      {
        contextPolicy: "memory",
        maxTurns: config.rl.maxTurns,
        maxTurnTokens: config.rl.maxTurnTokens,
        maxPositions: policy.config.maxPositions,
        seed: hashSeed(seed, 0x7011, step),
      },
    );
    const credit = await computeMemoryCredit(policy, episodes, data.tokenizer, {
      epsilon: config.rl.epsilon,
      std: config.rl.std,
      pool,
      coverage: flags.coverage,
      ...(config.rl.memThreshold === undefined ? {} : { threshold: config.rl.memThreshold }),
    });
    episodes.forEach((e, i) =>
      e.turns.forEach((t, k) => {
        const r = credit.rewards[i]![k];
        const a = credit.advantages[i]![k];
        if (r === null || r === undefined || a === null || a === undefined || t.memSpan === undefined) return;
        const len = t.memSpan[1] - t.memSpan[0];
        const cell = byTurn.get(k) ?? { r: [], a: [], len: [] };
        cell.r.push(r), cell.a.push(a), cell.len.push(len);
        byTurn.set(k, cell);
        spans.push({ len, a });
        const mem = (u: typeof t) =>
          u.memSpan === undefined ? "" : u.sampled.slice(u.memSpan[0], u.memSpan[1]).join(" ");
        const kind = k > 0 && mem(t) === mem(e.turns[k - 1]!) ? stale : fresh;
        kind.r.push(r), kind.a.push(a), (kind.zero += r === 0 ? 1 : 0);
      })
    );
  }
  policy.dispose();
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  console.log(`pool ${pool}, ${steps} steps of 32 episodes from ${dir}/${stage}`);
  console.log("turn | memories | mean R^M | mean A^M | mean span tokens");
  for (const [k, c] of [...byTurn].sort((x, y) => x[0] - y[0])) {
    console.log(
      `${k + 1} | ${c.r.length} | ${mean(c.r).toFixed(3)} | ${mean(c.a).toFixed(3)} | ${mean(c.len).toFixed(1)}`,
    );
  }
  const L = spans.map((s) => s.len);
  const A = spans.map((s) => s.a);
  const [mL, mA] = [mean(L), mean(A)];
  const cov = mean(L.map((l, i) => (l - mL) * (A[i]! - mA)));
  const sd = (xs: number[], m: number) => Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
  console.log(
    `span-mean A^M ${mA.toFixed(3)}; token-weighted mean A^M ${
      (spans.reduce((s, x) => s + x.len * x.a, 0) / spans.reduce((s, x) => s + x.len, 0)).toFixed(3)
    }; corr(span length, A^M) ${(cov / sd(L, mL) / sd(A, mA)).toFixed(3)}`,
  );
  for (const [name, c] of [["stale (same as the turn before)", stale], ["fresh", fresh]] as const) {
    console.log(
      `${name}: ${c.r.length} memories, mean R^M ${mean(c.r).toFixed(3)}, mean A^M ${
        mean(c.a).toFixed(3)
      }, R^M = 0 in ${(100 * c.zero / Math.max(1, c.r.length)).toFixed(0)} %`,
    );
  }
});

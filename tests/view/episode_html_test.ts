import assert from "node:assert/strict";
import {
  advantageColor,
  advantageScale,
  episodeHtml,
  episodePairHtml,
  episodeView,
} from "../../lib/view/episode_html.ts";
import type { EpisodeRecord } from "../../lib/episodes/episode_record.ts";
import { JUPYTER_DISPLAY } from "../../lib/viz/display.ts";

const record: EpisodeRecord = {
  v: 1,
  stage: "mempo",
  step: 2,
  index: 5,
  group: 1,
  agent: "MemPO",
  contextPolicy: "memory",
  objectives: 1,
  question: "zorbex was born in which city ?",
  header: "<|system|> s <|end|> <|user|> zorbex was born in which city ? <|end|>",
  gold: [["kalmar", "kalmar city"]],
  answer: "vunom",
  em: [0],
  f1: [0],
  formatValid: true,
  reward: 0,
  totalTokens: 120,
  peakContext: 70,
  outcomeAdvantage: -0.5,
  leave: { turn: 1, token: 1, want: "kalmar", got: "vunom" },
  turns: [
    {
      head: "question",
      from: 0,
      contextTokens: 30,
      tokens: ["zorbex", "born", "|", "</mem>", "<search>", "zorbex", "born", "</search>"],
      tool: "<|user|> <information> zorbex born kalmar . </information> <|end|>",
      memSpan: [0, 4],
      advantages: [-0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5],
      memAdvantage: null,
      memReward: null,
      pMem: null,
      pFull: null,
    },
    {
      head: "question",
      from: 0,
      contextTokens: 50,
      tokens: ["|", "vunom", "</mem>", "<answer>", "vunom", "</answer>"],
      memSpan: [0, 3],
      advantages: [1.5, 1.5, 1.5, -0.5, -0.5, -0.5],
      memAdvantage: 2,
      memReward: -0.25,
      pMem: 0.5,
      pFull: 0.75,
    },
  ],
};

Deno.test("advantageColor(): green up, red down, opacity |A| / scale up to 0.85; advantageScale() the largest |A|", () => {
  assert.deepEqual([1, 0.5, -1, -4, 0, NaN].map((a) => advantageColor(a, 2)), [
    "rgba(26,127,55,0.425)",
    "rgba(26,127,55,0.213)",
    "rgba(207,34,46,0.425)",
    "rgba(207,34,46,0.85)",
    "transparent",
    "transparent",
  ]);
  assert.equal(advantageScale(record), 1.5);
  assert.equal(advantageScale({ turns: [{ tokens: [] }] } as never), 0);
});

Deno.test("episodeHtml(): each token with its advantage in title and data-adv, the memory credit, the leave, the gold", () => {
  const html = episodeHtml(record);
  const advs = [...html.matchAll(/data-adv="([^"]+)"/g)].map((m) => Number(m[1]));
  assert.deepEqual(advs, record.turns.flatMap((t) => t.advantages!));
  // turn 2's memory token: A = A^T + A^M, coloured at full strength (|A| = the scale)
  assert.match(
    html,
    /<span class="tok mem" style="background:rgba\(26,127,55,0.85\)" title="token 1 · A = \+1.5000 · A\^T −0.5000 · A\^M \+2.0000 · in &lt;mem&gt;" data-adv="1.5">\|<\/span>/,
  );
  // the token where it left the teacher's path, and the note under the turn
  assert.match(html, /<span class="tok mem leave" [^>]*>vunom<\/span>/);
  assert.match(html, /left the teacher's path here: the teacher wrote “kalmar”, the policy “vunom”/);
  assert.match(html, /<li class="turn left-path" data-turn="2">/);
  assert.match(html, /<dd class="gold">kalmar \/ kalmar city<\/dd>/);
  assert.match(html, /<dd class="wrong">vunom<\/dd>/);
  assert.match(html, /A\^M <b>\+2.00<\/b><\/span><span>R\^M <b>−0.25<\/b> = P_mem 0.50 − P_full 0.75/);
  assert.match(html, /context 50 tokens: the question \+ turn 1 and its search results/);
  // the context it read, rebuilt from the record
  assert.ok(html.includes("&lt;|assistant|&gt; &lt;mem&gt; zorbex born | &lt;/mem&gt; &lt;search&gt; zorbex born"));
  assert.match(html, /<span>−1.50<\/span><span class="bar"><\/span><span>\+1.50<\/span>/, "the legend's range");
});

Deno.test("episodeHtml(): an evaluation episode has no colours, says so, and escapes what the policy wrote", () => {
  const evaluated: EpisodeRecord = {
    ...record,
    stage: "eval",
    answer: "<script>alert(1)</script>",
    outcomeAdvantage: undefined,
    leave: null,
    turns: record.turns.map(({ advantages: _a, memAdvantage: _m, memReward: _r, pMem: _p, pFull: _f, ...t }) => t),
  };
  const html = episodeHtml(evaluated);
  assert.doesNotMatch(html, /data-adv=/);
  assert.match(html, /greedy evaluation: no advantages/);
  assert.match(html, /never left the teacher&#39;s path/);
  assert.ok(!html.includes("<script>alert"), "the answer is escaped");
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
});

Deno.test("episodePairHtml() shares one colour scale; episodeView() is the same HTML for Jupyter", () => {
  const weak = { ...record, turns: [{ ...record.turns[0]!, advantages: record.turns[0]!.tokens.map(() => 0.75) }] };
  const pair = episodePairHtml(weak, record);
  // 0.75 on the scale of 1.5: half the strongest colour
  assert.match(pair, /style="background:rgba\(26,127,55,0.425\)"/);
  assert.equal(pair.match(/class="mempo-episode"/g)!.length, 2);
  const view = episodeView(record, { title: "One MemPO episode" });
  assert.deepEqual(Object.keys(view[JUPYTER_DISPLAY]()), ["text/html"]);
  assert.equal(view[JUPYTER_DISPLAY]()["text/html"], view.html);
  assert.match(view.html, /<h3>One MemPO episode<\/h3>/);
});

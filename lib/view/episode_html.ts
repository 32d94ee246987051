/**
 * An episode as HTML, one component for `deno task view`'s episode browser
 * and the lesson notebooks: the question and gold answer against the answer
 * given, then each turn's context (folded), its tokens coloured by their
 * advantage in the update (a `title` on each gives the numbers), the memory
 * credit of the turn (A^M, R^M = P_mem − P_full), the tool's answer, and the
 * token where the episode first left the scripted teacher's path.
 *
 * @module
 */
import { html, raw } from "hono/html";
import { type EpisodeRecord, turnContext, type TurnRecord } from "../episodes/episode_record.ts";
import { JUPYTER_DISPLAY } from "../viz/display.ts";

/** Options of {@linkcode episodeHtml}. */
export interface EpisodeHtmlOptions {
  /** |A| that gets the strongest colour (two episodes side by side share it). @default the episode's largest |A| */
  scale?: number;
  /** A title above the episode. @default "<agent> (<context policy>)" */
  title?: string;
}

// a template (hono/html escapes every value that is not itself a template or raw); String() of it is its text
const h = (strings: TemplateStringsArray, ...values: unknown[]): string => html(strings, ...values) as string;

const fixed = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined ? "–" : `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;

/** The component's style, scoped to `.mempo-episode` (inlined once per episode, so a notebook cell stands alone). */
export const EPISODE_CSS = `
.mempo-episode{font:13px/1.5 system-ui,sans-serif;color:#1f2328;max-width:100%}
.mempo-episode h3{font-size:14px;margin:4px 0}
.mempo-episode .facts{display:grid;grid-template-columns:max-content 1fr;gap:0 10px;margin:4px 0 8px}
.mempo-episode .facts dt{color:#57606a}.mempo-episode .facts dd{margin:0}
.mempo-episode .right{color:#1a7f37;font-weight:600}.mempo-episode .wrong{color:#cf222e;font-weight:600}
.mempo-episode ol.turns{list-style:none;padding:0;margin:0}
.mempo-episode li.turn{border:1px solid #d0d7de;border-radius:6px;padding:6px 8px;margin:0 0 8px}
.mempo-episode li.turn.left-path{border-color:#cf222e;border-width:2px}
.mempo-episode .turn-head{display:flex;flex-wrap:wrap;gap:4px 14px;color:#57606a;font-size:12px}
.mempo-episode .turn-head b{color:#1f2328}
.mempo-episode details summary{cursor:pointer;color:#57606a;font-size:12px}
.mempo-episode pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12px/1.45 ui-monospace,monospace;background:#f6f8fa;padding:4px 6px;border-radius:4px}
.mempo-episode .tokens{font:13px/2 ui-monospace,monospace;margin:4px 0}
.mempo-episode .tok{padding:1px 2px;border-radius:3px;margin-right:3px;white-space:nowrap}
.mempo-episode .tok.forced{color:#8c959f}
.mempo-episode .tok.mem{box-shadow:inset 0 -2px 0 #8250df}
.mempo-episode .tok.leave{outline:2px solid #cf222e;outline-offset:1px}
.mempo-episode .leave-note{color:#cf222e;font-size:12px}
.mempo-episode .tool{color:#57606a}
.mempo-episode .legend{display:flex;align-items:center;gap:8px;font-size:12px;color:#57606a;margin:6px 0;flex-wrap:wrap}
.mempo-episode .legend .bar{width:160px;height:10px;border-radius:2px;background:linear-gradient(90deg,rgba(207,34,46,.85),rgba(255,255,255,0),rgba(26,127,55,.85))}
.mempo-pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(360px,1fr));gap:16px;align-items:start}
`;

/**
 * The colour of a token's advantage: green for a token the update pushes up,
 * red for one it pushes down, its opacity |A| / scale (at most 0.85).
 *
 * ```text
 * α = 0.85 · min(1, |A| / scale);  A > 0 → rgba(26,127,55,α);  A < 0 → rgba(207,34,46,α);  A = 0 → transparent
 * ```
 *
 * Source: this package (a diverging scale around 0, as the legend shows).
 *
 * @param advantage The token's advantage.
 * @param scale |A| of the strongest colour (> 0).
 * @returns A CSS colour.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { advantageColor } from "./episode_html.ts";
 *
 * assert.equal(advantageColor(2, 1), "rgba(26,127,55,0.85)");
 * assert.equal(advantageColor(-0.5, 1), "rgba(207,34,46,0.425)");
 * assert.equal(advantageColor(0, 1), "transparent");
 * ```
 */
export function advantageColor(advantage: number, scale: number): string {
  if (advantage === 0 || !Number.isFinite(advantage)) return "transparent";
  const alpha = Math.round(0.85 * Math.min(1, Math.abs(advantage) / scale) * 1000) / 1000;
  return advantage > 0 ? `rgba(26,127,55,${alpha})` : `rgba(207,34,46,${alpha})`;
}

/**
 * The largest |A| of a record's tokens (0 without advantages): the default scale of its colours.
 *
 * Source: this package.
 *
 * @param record The record.
 * @returns max |A|.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { advantageScale } from "./episode_html.ts";
 *
 * assert.equal(advantageScale({ turns: [{ advantages: [0.5, -1.5] }, {}] } as never), 1.5);
 * ```
 */
export function advantageScale(record: Pick<EpisodeRecord, "turns">): number {
  return record.turns.reduce((m, t) => Math.max(m, ...(t.advantages ?? []).map(Math.abs)), 0);
}

function contextNote(turn: TurnRecord, k: number): string {
  if (turn.context !== undefined) return "its own text";
  const head = turn.head === "system" ? "the system message" : "the question";
  const held = k - turn.from;
  if (held <= 0) return head;
  return `${head} + ${held === 1 ? `turn ${k}` : `turns ${turn.from + 1}–${k}`} and ${
    held === 1 ? "its" : "their"
  } search results`;
}

function tokenTitle(record: EpisodeRecord, turn: TurnRecord, i: number, inMem: boolean): string {
  const a = turn.advantages?.[i];
  const parts = [`token ${i + 1}`];
  if (a !== undefined) {
    parts.push(`A = ${fixed(a, 4)}`);
    if (record.outcomeAdvantage !== undefined) parts.push(`A^T ${fixed(record.outcomeAdvantage, 4)}`);
    if (inMem && turn.memAdvantage !== undefined && turn.memAdvantage !== null) {
      parts.push(`A^M ${fixed(turn.memAdvantage, 4)}`);
    }
  } else if (record.stage !== "eval") parts.push("no loss (a teacher's turn)");
  if (inMem) parts.push("in <mem>");
  return parts.join(" · ");
}

function turnHtml(record: EpisodeRecord, turn: TurnRecord, k: number, scale: number): string {
  const leave = record.leave?.turn === k ? record.leave : undefined;
  const [memStart, memEnd] = turn.memSpan ?? [-1, -1];
  const tokens = turn.tokens.map((word, i) => {
    const inMem = i >= memStart && i < memEnd;
    const a = turn.advantages?.[i];
    const classes = ["tok", inMem ? "mem" : "", leave?.token === i ? "leave" : ""].filter(Boolean).join(" ");
    const style = a === undefined ? "" : `background:${advantageColor(a, scale)}`;
    return h`<span class="${classes}" style="${style}" title="${tokenTitle(record, turn, i, inMem)}"${
      raw(a === undefined ? "" : ` data-adv="${a}"`)
    }>${word}</span>`;
  });
  const leaveEnd = leave !== undefined && leave.token >= turn.tokens.length
    ? h`<span class="tok leave" title="the turn ended where the teacher went on">∅</span>`
    : "";
  const credit = turn.memReward === null
    ? h`<span>no memory credit${k === 0 ? " (no history yet)" : ""}</span>`
    : turn.memReward !== undefined
    ? h`<span>A^M <b>${fixed(turn.memAdvantage)}</b></span><span>R^M <b>${fixed(turn.memReward)}</b> = P_mem ${
      turn.pMem === null || turn.pMem === undefined ? "–" : turn.pMem.toFixed(2)
    } − P_full ${turn.pFull === null || turn.pFull === undefined ? "–" : turn.pFull.toFixed(2)}</span>`
    : "";
  const scripted = record.learnFrom !== undefined && k < record.learnFrom
    ? h`<span>written by the teacher (rl.joinShare)</span>`
    : "";
  return h`<li class="turn${leave ? " left-path" : ""}" data-turn="${k + 1}">
<div class="turn-head"><b>turn ${k + 1}</b><span>context ${turn.contextTokens} tokens: ${
    contextNote(turn, k)
  }</span>${credit}${scripted}</div>
<details><summary>the context it read</summary><pre>${turnContext(record, k)}</pre></details>
<div class="tokens"><span class="tok forced" title="forced prefix (not sampled)">&lt;mem&gt;</span>${
    raw(tokens.join("<wbr>")) // a line may break between tokens, never inside one
  }${leaveEnd}</div>
${
    leave
      ? h`<div class="leave-note">⚑ left the teacher's path here: the teacher wrote “${
        leave.want || "(end of turn)"
      }”, the policy “${leave.got || "(end of turn)"}”</div>`
      : ""
  }
${turn.tool ? h`<div class="tool"><pre>${turn.tool}</pre></div>` : ""}
</li>`;
}

/**
 * One episode as an HTML fragment (with its style): header (agent, question,
 * gold and given answer, reward, tokens, where it left the teacher's path),
 * a legend of the advantage colours when the episode has advantages, then
 * its turns. Every token is a `<span>` whose `title` gives its advantage
 * (A, A^T, and A^M on a `<mem>` span) and whose `data-adv` holds A.
 *
 * Source: this package (`deno task view`, lessons 8 and 9).
 *
 * @param record The episode.
 * @param options Colour scale, title.
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodeHtml } from "./episode_html.ts";
 *
 * const record = {
 *   v: 1, stage: "mempo", step: 0, index: 0, agent: "MemPO", contextPolicy: "memory", objectives: 1, question: "q ?",
 *   header: "<|system|> s <|end|> <|user|> q ? <|end|>", gold: [["kalmar"]], answer: "kalmar", em: [1], f1: [1],
 *   formatValid: true, reward: 1, totalTokens: 40, peakContext: 30, outcomeAdvantage: 0.5, leave: null,
 *   turns: [{ head: "question", from: 0, contextTokens: 20, tokens: ["x", "</mem>", "<answer>", "kalmar", "</answer>"], memSpan: [0, 2], advantages: [1.5, 1.5, 0.5, 0.5, 0.5], memAdvantage: 1, memReward: 0.2, pMem: 0.9, pFull: 0.7 }],
 * } as const;
 * const text = episodeHtml(record as never);
 * assert.match(text, /<span class="tok mem" style="background:rgba\(26,127,55,0.85\)" title="token 1 · A = \+1.5000 · A\^T \+0.5000 · A\^M \+1.0000 · in &lt;mem&gt;" data-adv="1.5">x<\/span>/);
 * assert.match(text, /R\^M <b>\+0.20<\/b> = P_mem 0.90 − P_full 0.70/);
 * assert.match(text, /<dd>never left the teacher&#39;s path<\/dd>/);
 * ```
 */
export function episodeHtml(record: EpisodeRecord, options: EpisodeHtmlOptions = {}): string {
  const scale = options.scale ?? (advantageScale(record) || 1);
  const hasAdv = record.turns.some((t) => t.advantages !== undefined);
  const right = record.reward === 1;
  const where = record.stage === "eval"
    ? `evaluation, ${record.objectives}-objective test set, question ${record.index + 1}`
    : `${record.agent} step ${(record.step ?? 0) + 1}, episode ${record.index + 1} (group ${record.group})`;
  const leave = record.leave === undefined
    ? ""
    : record.leave === null
    ? "never left the teacher's path"
    : `left the teacher's path at turn ${record.leave.turn + 1}, token ${record.leave.token + 1}`;
  return String(
    h`<div class="mempo-episode" data-stage="${record.stage}" data-agent="${record.agent}" data-policy="${record.contextPolicy}">
<style>${raw(EPISODE_CSS)}</style>
<h3>${options.title ?? `${record.agent} (${record.contextPolicy} context)`}</h3>
<dl class="facts">
<dt>episode</dt><dd>${where}</dd>
<dt>question</dt><dd>${record.question}</dd>
<dt>gold</dt><dd class="gold">${record.gold.map((aliases) => aliases.join(" / ")).join(" ; ")}</dd>
<dt>answer</dt><dd class="${right ? "right" : "wrong"}">${record.answer ?? "(none)"}</dd>
<dt>outcome</dt><dd>reward ${record.reward} · EM ${
      record.em.join(" ")
    } · ${record.turns.length} turns · ${record.totalTokens} tokens, peak context ${record.peakContext}${
      record.outcomeAdvantage !== undefined ? ` · A^T ${fixed(record.outcomeAdvantage)}` : ""
    }</dd>
${record.error ? h`<dt>ended</dt><dd class="wrong">${record.error}</dd>` : ""}
${leave ? h`<dt>teacher</dt><dd>${leave}</dd>` : ""}
</dl>
${
      hasAdv
        ? h`<div class="legend"><span>advantage in the update:</span><span>${
          fixed(-scale)
        }</span><span class="bar"></span><span>${
          fixed(scale)
        }</span><span>(pushed down · 0 · pushed up; underlined: the &lt;mem&gt; span; hover a token for its numbers)</span></div>`
        : h`<div class="legend"><span>greedy evaluation: no advantages (underlined: the &lt;mem&gt; span)</span></div>`
    }
<ol class="turns">${raw(record.turns.map((t, k) => turnHtml(record, t, k, scale)).join(""))}</ol>
</div>`,
  );
}

/**
 * Two episodes side by side on one colour scale (the memory agent beside the full-context agent on the same question).
 *
 * Source: this package.
 *
 * @param left The first episode.
 * @param right The second (absent: the first alone).
 * @returns HTML text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodePairHtml } from "./episode_html.ts";
 *
 * const r = { stage: "eval", index: 0, agent: "SFT", contextPolicy: "full", objectives: 1, question: "q", header: "", gold: [["a"]], answer: null, em: [0], f1: [0], formatValid: false, reward: 0, totalTokens: 0, peakContext: 0, turns: [] };
 * assert.equal(episodePairHtml(r as never, { ...r, contextPolicy: "memory" } as never).match(/class="mempo-episode"/g)!.length, 2);
 * ```
 */
export function episodePairHtml(left: EpisodeRecord, right?: EpisodeRecord): string {
  const scale = Math.max(advantageScale(left), right ? advantageScale(right) : 0) || 1;
  return String(
    h`<div class="mempo-pair">${raw(episodeHtml(left, { scale }))}${
      raw(right ? episodeHtml(right, { scale }) : "")
    }</div>`,
  );
}

/**
 * An episode as a notebook output: Jupyter shows {@linkcode episodeHtml}'s HTML (`text/html`).
 *
 * Source: Deno's Jupyter kernel rich display (`Symbol.for("Jupyter.display")`).
 *
 * @param record The episode.
 * @param options Colour scale, title.
 * @returns A displayable (`await Deno.jupyter.display(episodeView(record))`), its HTML in `html`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JUPYTER_DISPLAY } from "../viz/display.ts";
 * import { episodeView } from "./episode_html.ts";
 *
 * const r = { stage: "eval", index: 0, agent: "SFT", contextPolicy: "memory", objectives: 1, question: "q", header: "", gold: [["a"]], answer: "a", em: [1], f1: [1], formatValid: true, reward: 1, totalTokens: 0, peakContext: 0, turns: [] };
 * const view = episodeView(r as never);
 * assert.equal(view[JUPYTER_DISPLAY]()["text/html"], view.html);
 * ```
 */
export function episodeView(
  record: EpisodeRecord,
  options: EpisodeHtmlOptions = {},
): { html: string; [JUPYTER_DISPLAY](): Record<string, string> } {
  const text = episodeHtml(record, options);
  return { html: text, [JUPYTER_DISPLAY]: () => ({ "text/html": text }) };
}

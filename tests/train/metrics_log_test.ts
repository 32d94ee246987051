import assert from "node:assert/strict";
import { DataError } from "../../lib/errors.ts";
import { parseMetricsLog, readMetricsLog, tornLineNote } from "../../lib/train/metrics_log.ts";

const row = (stage: string, step: number) => JSON.stringify({ stage, step, "sft/loss": 1 / (step + 3) });

Deno.test("parseMetricsLog(): every row in order; a torn last line dropped and its number given; blank lines skipped", () => {
  const text = [row("pretrain", 0), "", row("sft", 0), row("sft", 1), '{"stage":"sft","step":2,"sft/lo'].join("\n");
  assert.deepEqual(parseMetricsLog(text, "m.jsonl"), {
    rows: [
      { stage: "pretrain", step: 0, "sft/loss": 1 / 3 },
      { stage: "sft", step: 0, "sft/loss": 1 / 3 },
      { stage: "sft", step: 1, "sft/loss": 1 / 4 },
    ],
    torn: 5,
  });
  // a whole file ends with a newline: its last line is empty, every row is kept, nothing is torn
  assert.deepEqual(parseMetricsLog(`${row("sft", 0)}\n${row("sft", 1)}\n`, "m.jsonl").torn, undefined);
  assert.equal(parseMetricsLog(`${row("sft", 0)}\n${row("sft", 1)}\n`, "m.jsonl").rows.length, 2);
  // a last row whole but with no newline after it is a row
  assert.deepEqual(parseMetricsLog(row("sft", 0), "m.jsonl"), { rows: [{ stage: "sft", step: 0, "sft/loss": 1 / 3 }] });
  assert.deepEqual(parseMetricsLog("", "m.jsonl"), { rows: [] });
  assert.equal(
    tornLineNote("runs/x/metrics.jsonl", parseMetricsLog(text, "runs/x/metrics.jsonl")),
    "runs/x/metrics.jsonl line 5 was cut short (an append a kill interrupted) and is dropped: the training figures " +
      "and summaries use the 3 rows before it",
  );
});

Deno.test("parseMetricsLog(): a bad line before the last is refused, naming the file and the line, never as a resume", () => {
  const bad: [string, RegExp][] = [
    [`${row("sft", 0)}\n{"stage":"sft"\n${row("sft", 2)}\n`, /^runs\/x\/metrics\.jsonl line 2 is not JSON \(/],
    // a torn line followed by a newline was not the last append: the rows after it would be lost
    [`${row("sft", 0)}\n{"stage":"sft"\n`, /^runs\/x\/metrics\.jsonl line 2 is not JSON/],
    [`${row("sft", 0)}\n[1, 2]\n`, /^runs\/x\/metrics\.jsonl line 2 is not a metrics row \(no stage and step\)$/],
    [`{"stage":"sft"}\n`, /^runs\/x\/metrics\.jsonl line 1 is not a metrics row/],
    ["null\n", /line 1 is not a metrics row/],
  ];
  for (const [text, message] of bad) {
    assert.throws(
      () => parseMetricsLog(text, "runs/x/metrics.jsonl"),
      (e: Error) => e instanceof DataError && message.test(e.message) && !/resume/i.test(e.message),
      text,
    );
  }
});

Deno.test("readMetricsLog(): a missing file has no rows; the text is returned as read; an unreadable one is a DataError", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(await readMetricsLog(`${dir}/metrics.jsonl`), { rows: [], text: "" });
    const text = `${row("sft", 0)}\n${row("sft", 1)}\n{"sta`;
    await Deno.writeTextFile(`${dir}/metrics.jsonl`, text);
    const log = await readMetricsLog(`${dir}/metrics.jsonl`);
    assert.equal(log.text, text);
    assert.deepEqual(log.rows.map((r) => r.step), [0, 1]);
    assert.equal(log.torn, 3);
    await Deno.mkdir(`${dir}/dir.jsonl`);
    await assert.rejects(
      readMetricsLog(`${dir}/dir.jsonl`),
      (e: Error) => e instanceof DataError && /Cannot read .*dir\.jsonl/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import { buildData, loadData } from "../../lib/data/build.ts";
import { buildContext, chatTemplate } from "../../lib/env/context.ts";
import { formatInformation } from "../../lib/env/search.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { buildTokenizer, decode, encode, SPECIAL_TOKENS } from "../../lib/text/tokenizer.ts";
import { CHAT_TEMPLATE, HF_SPECIAL_TOKENS, hfTokenizerFiles } from "../../lib/export/hf_tokenizer.ts";
import { hasTorch, PYTHON } from "../_helpers.ts";
import { commandSucceeds } from "../../lib/cli/command_probe.ts";

async function smallData() {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 9, {
    trainCount: 40,
    testCount: 4,
    testObjectives: [1, 2, 4],
    trainObjectives: [1, 2],
    sizes: { countries: 3, cities: 6, people: 12, companies: 6, films: 6, distractors: 2 },
  });
  return { dir, data: await loadData(dir) };
}

Deno.test("hfTokenizerFiles(): only <pad> and <eos> special, unk/eos/pad named, no BOS, no space clean-up", () => {
  const tok = buildTokenizer(["a b"]);
  const files = hfTokenizerFiles(tok, 512);
  const json = JSON.parse(files["tokenizer.json"]);
  assert.deepEqual(json.added_tokens.map((t: { content: string }) => t.content), [...SPECIAL_TOKENS]);
  for (const t of json.added_tokens) assert.equal(t.special, HF_SPECIAL_TOKENS.includes(t.content), t.content);
  assert.deepEqual([json.model.type, json.normalizer.type, json.pre_tokenizer.type], [
    "WordLevel",
    "Lowercase",
    "Whitespace",
  ]);
  const config = JSON.parse(files["tokenizer_config.json"]);
  assert.deepEqual(
    [config.unk_token, config.eos_token, config.pad_token, config.add_bos_token, config.clean_up_tokenization_spaces],
    ["<unk>", "<eos>", "<pad>", false, false],
  );
  assert.equal(config.chat_template, CHAT_TEMPLATE);
  assert.deepEqual(JSON.parse(files["special_tokens_map.json"]).unk_token, "<unk>");
  assert.throws(() => hfTokenizerFiles(tok, 0), /maxPositions must be a positive integer, current value is 0/);
});

Deno.test("the exported tokenizer, read by Hugging Face's tokenizers (npm), encodes and decodes the task text as the package does", async () => {
  const { dir, data } = await smallData();
  const tok = data.tokenizer;
  const files = hfTokenizerFiles(tok, 2048);
  const hf = new HfTokenizer(JSON.parse(files["tokenizer.json"]), JSON.parse(files["tokenizer_config.json"]));
  const template = chatTemplate(tok);
  const records = [...data.train, ...[...data.test.values()].flat()];
  const episodes = await runEpisodes(createTeacher(tok), tasksFromRecords(data.train), data, { contextPolicy: "full" });
  const texts = [
    ...records.map((r) => r.prompt.map((m) => `<|${m.role}|> ${m.content} <|end|>`).join(" ")),
    ...records.map((r) => r.targets.map((a) => a.join(" , ")).join(" ; ")),
    ...data.corpus.map((d) => d.text),
    ...data.corpus.map((_, i) => formatInformation(data.search.search(data.corpus[i]!.id, 3))),
    ...episodes.flatMap((e) => e.turns.map((t) => t.text)),
    formatInformation([]),
    "<mem>Zorbex, BORN?</mem>  <answer>kalmar;vestria</answer>\n<|end|>",
  ];
  let tokens = 0;
  for (const text of texts) {
    const ids = encode(tok, text).ids;
    assert.deepEqual(hf.encode(text).ids, ids, text);
    tokens += ids.length;
    if (ids.length > 0) assert.equal(hf.decode(ids), decode(tok, ids), text);
  }
  // whole trajectories as verl holds them, and decoding with skip_special_tokens drops only <pad> and <eos>
  for (const e of episodes) {
    const ids = e.turns.flatMap((t) => [...template.turnPrefix, ...t.sampled, ...template.turnEnd, ...t.tool]);
    const withPad = [...ids, tok.padId, tok.eosId];
    assert.equal(hf.decode(withPad, { skip_special_tokens: true }), decode(tok, ids));
  }
  console.log(
    `tokenizer equality: ${texts.length} task texts, ${tokens} tokens, ids equal (@huggingface/tokenizers 0.2.0)`,
  );
  await Deno.remove(dir, { recursive: true });
});

/** Renders messages with jinja2 as transformers does (sandboxed, trim_blocks, lstrip_blocks, raise_exception). */
async function renderChat(conversations: { messages: { role: string; content: string }[]; generation: boolean }[]) {
  const script = `
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.exceptions import TemplateError
def raise_exception(message):
    raise TemplateError(message)
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
env.globals["raise_exception"] = raise_exception
template = env.from_string(sys.argv[1])
out = []
for c in json.load(sys.stdin):
    try:
        out.append(template.render(messages=c["messages"], add_generation_prompt=c["generation"]))
    except TemplateError as e:
        out.append({"error": str(e)})
print(json.dumps(out))
`;
  const child = new Deno.Command(PYTHON, {
    args: ["-c", script, CHAT_TEMPLATE],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(JSON.stringify(conversations)));
  await w.close();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as (string | { error: string })[];
}

Deno.test("the chat template (rendered by jinja2 as transformers does) gives the package's contexts token for token", async () => {
  if (!(await hasTorch("chat template rendering"))) return;
  if (!(await commandSucceeds(PYTHON, ["-c", "import jinja2"]))) {
    if (Deno.env.get("MEMPO_REQUIRE_TORCH") === "1") {
      throw new Error(`${PYTHON} has no jinja2 (apt-get install python3-jinja2)`);
    }
    console.log(`skipped: chat template rendering: ${PYTHON} has no jinja2 (apt-get install python3-jinja2)`);
    return;
  }
  const { dir, data } = await smallData();
  const tok = data.tokenizer;
  const t = chatTemplate(tok);
  const episodes = await runEpisodes(createTeacher(tok), tasksFromRecords(data.train.slice(0, 12)), data, {
    contextPolicy: "full",
  });
  const conversations: { messages: { role: string; content: string }[]; generation: boolean }[] = [];
  const expected: number[][] = [];
  for (const [i, e] of episodes.entries()) {
    const record = data.train[i]!;
    // the first prompt verl renders: system + user + generation prompt
    conversations.push({ messages: record.prompt, generation: true });
    expected.push(e.turns[0]!.context);
    // a tool message alone (what verl's agent loop appends after a generated turn)
    for (const turn of e.turns.filter((x) => x.tool.length > 0)) {
      const info = decode(tok, turn.tool.slice(1, -1));
      conversations.push({ messages: [{ role: "tool", content: info }], generation: true });
      expected.push([...t.turnEnd, ...turn.tool, ...t.turnPrefix]);
    }
    // the whole history before the last turn: the package's full context of that turn
    const last = e.turns.length - 1;
    const messages = [...record.prompt];
    for (const turn of e.turns.slice(0, last)) {
      messages.push({ role: "assistant", content: decode(tok, [...t.turnPrefix.slice(1), ...turn.sampled]) });
      messages.push({ role: "tool", content: decode(tok, turn.tool.slice(1, -1)) });
    }
    conversations.push({ messages, generation: true });
    expected.push(e.turns[last]!.context);
  }
  // verl's initialize_system_prompt: the tokens before the first user message must be none
  conversations.push({ messages: [{ role: "user", content: "" }], generation: false });
  conversations.push({ messages: [{ role: "user", content: "" }, { role: "user", content: "" }], generation: false });
  conversations.push({ messages: [{ role: "critic", content: "x" }], generation: false });
  const rendered = await renderChat(conversations);
  expected.forEach((ids, i) =>
    assert.deepEqual(encode(tok, rendered[i] as string).ids, ids, JSON.stringify(conversations[i]))
  );
  const [one, two, bad] = rendered.slice(-3);
  const a = encode(tok, one as string).ids;
  const b = encode(tok, two as string).ids;
  assert.deepEqual(a.slice(0, a.length - (b.length - a.length)), [], "verl's system prompt of this template is empty");
  assert.match((bad as { error: string }).error, /unknown role critic/);
  // and the full context of the last turn equals buildContext(…, full)
  assert.ok(episodes.some((e) => e.turns.length >= 3));
  const e0 = episodes.find((e) => e.turns.length >= 3)!;
  const history = e0.turns.slice(0, -1).map((x) => ({ assistant: [...t.turnPrefix, ...x.sampled], tool: x.tool }));
  assert.deepEqual(
    buildContext(t.header(e0.task.question), history, t, { policy: "full", maxTokens: 4096 }).tokens,
    e0.turns.at(-1)!.context,
  );
  console.log(`chat template: ${expected.length} rendered prompts equal the package's contexts`);
  await Deno.remove(dir, { recursive: true });
});

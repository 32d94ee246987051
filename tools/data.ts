// `deno task data`: generate the world, corpus, QA sets and tokenizer into data/<preset> (or --out DIR).
import { parseArgs } from "node:util";
import { buildData } from "../lib/data/build.ts";
import { resolveConfig } from "../lib/config/experiment.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { preset: { type: "string", default: "default" }, seed: { type: "string" }, out: { type: "string" } },
});
const config = resolveConfig(values.preset!, values.seed === undefined ? {} : { seed: Number(values.seed) });
const out = values.out ?? `data/${config.preset}`;
const manifest = await buildData(out, config.seed, config.data);
console.log(`wrote ${out}:`, JSON.stringify(manifest));

/**
 * The command-line machinery every task shares (`deno task train`, `eval`,
 * `data`, `notebooks`, `test`, `bench` and the tools): a task declares its
 * flags once (name, type, default, help) and gets parsing, `--help`, and one
 * error path from {@linkcode runTask}: an expected failure (a
 * {@linkcode UsageError}: exit 2, with the usage line; a
 * {@linkcode DataError}: exit 1) prints one line naming the flag, field or
 * file and the value, with no stack trace; any other error is a bug and keeps
 * its stack trace.
 *
 * A flag every task takes goes in {@linkcode SHARED_FLAGS}, with an `apply`
 * hook that runs after parsing and before the task's body.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { DataError, UsageError } from "../errors.ts";
import { setBackend, wasmThreads } from "../backend.ts";
import { wasmEnvError } from "../wasm/wasm_threads.ts";

/** One flag of a task. */
export interface FlagSpec {
  /** `string`, `boolean` (with `--no-NAME` when its default is true), `integer` or `number`. */
  type: "string" | "boolean" | "integer" | "number";
  /** One-line meaning, shown by `--help`. */
  help: string;
  /** Value when the flag is not given (shown by `--help`). */
  default?: string | number | boolean;
  /** What `--help` shows as the default when it is computed elsewhere (`runs/<name>`). */
  defaultText?: string;
  /** Placeholder of the value in `--help` (`DIR`, `N`). @default the type */
  value?: string;
  /** Allowed values of a string flag. */
  choices?: readonly string[];
  /** Smallest value of a number flag. */
  min?: number;
  /** One-letter alias. */
  short?: string;
}

/** A flag every task takes: its spec, and what it does once parsed. */
export interface SharedFlagSpec extends FlagSpec {
  /** Runs after parsing, before the task's body, with the flag's value. */
  apply?: (value: unknown) => void | Promise<void>;
}

/** What a task takes: its name and summary, its flags, its positional arguments. */
export interface TaskSpec {
  /** How it is invoked (`deno task eval`). */
  name: string;
  /** One paragraph: what it does. */
  summary: string;
  /** Its flags by name (kebab-case, without `--`). */
  flags: Readonly<Record<string, FlagSpec>>;
  /** Positional arguments, in order. */
  positionals?: readonly { name: string; help: string; optional?: boolean; variadic?: boolean }[];
  /** Extra help text after the flags (examples, notes). */
  notes?: string;
}

type ValueOf<F extends FlagSpec> = F["type"] extends "boolean" ? boolean
  : F["type"] extends "integer" | "number" ? (F extends { default: number } ? number : number | undefined)
  : F extends { default: string } ? string
  : string | undefined;

/** The parsed values of a task's flags, typed from its spec. */
export type FlagValues<F extends Readonly<Record<string, FlagSpec>>> = { -readonly [K in keyof F]: ValueOf<F[K]> };

/** A task's parsed command line. */
export interface TaskArgs<F extends Readonly<Record<string, FlagSpec>>> {
  /** Flag values (defaults filled in). */
  flags: FlagValues<F>;
  /** Positional arguments. */
  positionals: string[];
}

/**
 * Flags every task takes, with the hook that applies each. Adding one here
 * adds it to every task's parsing and `--help` (the tasks' own flags must not
 * use its name).
 */
export const SHARED_FLAGS: Readonly<Record<string, SharedFlagSpec>> = Object.freeze({
  threads: {
    type: "integer",
    min: 1,
    value: "N",
    defaultText: "MEMPO_THREADS, else every core",
    help: "threads of the wasm backend's matrix products (1: the single-threaded build); child processes inherit it",
    apply: async (value: unknown) => {
      // not given: the environment's MEMPO_THREADS holds, and one that could not be applied is refused here
      if (value === undefined) {
        const e = wasmEnvError();
        if (e !== undefined) throw e;
        return;
      }
      const n = value as number;
      Deno.env.set("MEMPO_THREADS", String(n)); // for the processes a task starts (tests, notebooks, bench rounds)
      if (wasmThreads() !== undefined && wasmThreads() !== n) await setBackend("wasm", { threads: n });
    },
  },
});

const HELP: FlagSpec = { type: "boolean", help: "show this help and exit", short: "h" };

function allFlags(spec: TaskSpec, shared: Readonly<Record<string, FlagSpec>>): Record<string, FlagSpec> {
  for (const name of Object.keys(shared)) {
    if (name in spec.flags) {
      throw new TypeError(`${spec.name}: flag --${name} is shared by every task, declare it once`);
    }
  }
  return { ...spec.flags, ...shared, help: HELP };
}

/**
 * The one-line usage of a task (`usage: deno task eval RUN [flags]`).
 *
 * Source: POSIX utility argument syntax (usage synopsis).
 *
 * @param spec The task.
 * @returns The line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usageLine } from "./task.ts";
 *
 * assert.equal(usageLine({ name: "deno task eval", summary: "", flags: {}, positionals: [{ name: "RUN", help: "" }] }), "usage: deno task eval RUN [flags]");
 * assert.equal(usageLine({ name: "deno task release", summary: "", flags: {}, positionals: [{ name: "RUN", help: "", variadic: true }] }), "usage: deno task release RUN... [flags]");
 * ```
 */
export function usageLine(spec: TaskSpec): string {
  const pos = (spec.positionals ?? []).map((p) => `${p.optional ? `[${p.name}]` : p.name}${p.variadic ? "..." : ""}`);
  return ["usage:", spec.name, ...pos, "[flags]"].join(" ");
}

/**
 * The `--help` text of a task: summary, usage, each positional argument and
 * each flag with its value's placeholder, its meaning, its choices and its
 * default.
 *
 * Source: cleanrl/tyro and argparse help layouts (a flag, its meaning, its default).
 *
 * @param spec The task.
 * @param shared Flags every task takes. @default SHARED_FLAGS
 * @returns The text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { taskHelp } from "./task.ts";
 *
 * const help = taskHelp({ name: "deno task x", summary: "Does x.", flags: { reps: { type: "integer", default: 5, help: "repetitions" } } });
 * assert.match(help, / {2}--reps N +repetitions \(default: 5\)/);
 * assert.match(help, / {2}-h, --help +show this help and exit/);
 * ```
 */
export function taskHelp(spec: TaskSpec, shared: Readonly<Record<string, FlagSpec>> = SHARED_FLAGS): string {
  const placeholder = (f: FlagSpec) =>
    f.type === "boolean" ? "" : ` ${f.value ?? (f.type === "string" ? "VALUE" : f.type === "integer" ? "N" : "X")}`;
  const rows: [string, string][] = Object.entries(allFlags(spec, shared)).map(([name, f]) => {
    const head = `${f.short ? `-${f.short}, ` : ""}--${name}${placeholder(f)}`;
    const notes = [
      f.choices ? `one of ${f.choices.join(", ")}` : "",
      f.min !== undefined ? `≥ ${f.min}` : "",
      f.defaultText !== undefined
        ? `default: ${f.defaultText}`
        : f.default !== undefined && !(f.type === "boolean" && f.default === false)
        ? `default: ${f.default}`
        : "",
      f.type === "boolean" && f.default === true ? `--no-${name} turns it off` : "",
    ].filter(Boolean);
    return [head, `${f.help}${notes.length ? ` (${notes.join("; ")})` : ""}`];
  });
  const positionals: [string, string][] = (spec.positionals ?? []).map((p) => [p.name, p.help]);
  const width = Math.max(...[...rows, ...positionals].map(([h]) => h.length)) + 2;
  const table = (xs: [string, string][]) => xs.map(([h, text]) => `  ${h.padEnd(width)}${text}`);
  return [
    `${spec.name}: ${spec.summary}`,
    "",
    usageLine(spec),
    ...(positionals.length ? ["", "arguments:", ...table(positionals)] : []),
    "",
    "flags:",
    ...table(rows),
    ...(spec.notes ? ["", spec.notes] : []),
    "",
  ].join("\n");
}

/**
 * Parses a task's command line against its spec: unknown flags, missing or
 * extra positional arguments, values that are not numbers, outside their
 * range or not among their choices are refused with a {@linkcode UsageError}
 * naming the flag and the value given.
 *
 * Source: Node's `util.parseArgs` (strict mode), with types and defaults on top.
 *
 * @param spec The task.
 * @param args The command line (`Deno.args`).
 * @param shared Flags every task takes. @default SHARED_FLAGS
 * @returns Flag values (defaults filled in; `help` among them) and positionals.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseTaskArgs } from "./task.ts";
 *
 * const spec = { name: "deno task x", summary: "", flags: { reps: { type: "integer", default: 5, min: 1, help: "" } } } as const;
 * assert.equal(parseTaskArgs(spec, ["--reps", "3"]).flags.reps, 3);
 * assert.throws(() => parseTaskArgs(spec, ["--reps", "three"]), /--reps must be an integer ≥ 1, current value is "three"/);
 * assert.throws(() => parseTaskArgs(spec, ["--rep", "3"]), /Unknown option '--rep'/);
 * ```
 */
export function parseTaskArgs<F extends Readonly<Record<string, FlagSpec>>>(
  spec: TaskSpec & { flags: F },
  args: readonly string[],
  shared: Readonly<Record<string, FlagSpec>> = SHARED_FLAGS,
): TaskArgs<F> & { flags: { help: boolean } } {
  const flags = allFlags(spec, shared);
  let parsed;
  try {
    parsed = parseArgs(
      {
        args: [...args],
        options: Object.fromEntries(
          Object.entries(flags).map((
            [name, f],
          ) => [name, { type: f.type === "boolean" ? "boolean" : "string", ...(f.short ? { short: f.short } : {}) }]),
        ),
        allowPositionals: (spec.positionals ?? []).length > 0,
        allowNegative: true,
        strict: true,
      } as Parameters<typeof parseArgs>[0],
    );
  } catch (e) {
    throw new UsageError((e as Error).message.split(". To specify")[0]!);
  }
  const values: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(flags)) {
    const given = (parsed.values as Record<string, string | boolean | undefined>)[name];
    if (given === undefined) {
      values[name] = f.default ?? (f.type === "boolean" ? false : undefined);
      continue;
    }
    if (f.type === "boolean" || f.type === "string") {
      if (f.choices && !f.choices.includes(given as string)) {
        throw new UsageError(
          `--${name} must be one of ${f.choices.join(", ")}, current value is ${JSON.stringify(given)}`,
        );
      }
      values[name] = given;
      continue;
    }
    const rule = `${f.type === "integer" ? "an integer" : "a number"}${f.min !== undefined ? ` ≥ ${f.min}` : ""}`;
    const n = Number(given);
    const ok = (given as string).trim() !== "" && Number.isFinite(n) &&
      (f.type === "number" || Number.isInteger(n)) && (f.min === undefined || n >= f.min);
    if (!ok) throw new UsageError(`--${name} must be ${rule}, current value is ${JSON.stringify(given)}`);
    values[name] = n;
  }
  const positionals = parsed.positionals;
  const declared = spec.positionals ?? [];
  const missing = declared.filter((p, i) => !p.optional && positionals[i] === undefined);
  if (missing.length > 0 && !values.help) throw new UsageError(`missing argument ${missing[0]!.name}`);
  if (positionals.length > declared.length && !declared.at(-1)?.variadic) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[declared.length])}`);
  }
  return { flags: values as FlagValues<F> & { help: boolean }, positionals };
}

/** Where {@linkcode executeTask} writes. */
export interface TaskIo {
  /** Standard output (help). */
  out: (text: string) => void;
  /** Standard error (expected failures). */
  err: (text: string) => void;
}

/**
 * Runs a task's body with the shared error path and returns its exit code:
 * `--help` prints the help (0); a {@linkcode UsageError} prints
 * `error: <message>` and the usage line (2); a {@linkcode DataError} prints
 * `error: <message>` (1); the body's own return value otherwise (0 when it
 * returns nothing). Any other error is rethrown with its stack trace.
 *
 * Source: the exit codes of POSIX utilities and argparse (2: usage, 1: failure).
 *
 * @param spec The task.
 * @param main The task's body; it may return an exit code.
 * @param args The command line.
 * @param io Where help and errors are written. @default console
 * @param shared Flags every task takes, applied before `main`. @default SHARED_FLAGS
 * @returns The exit code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DataError } from "../errors.ts";
 * import { executeTask } from "./task.ts";
 *
 * const lines: string[] = [];
 * const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) };
 * const spec = { name: "deno task x", summary: "Does x.", flags: {} };
 * assert.equal(await executeTask(spec, () => { throw new DataError("x.json is damaged"); }, [], io), 1);
 * assert.equal(await executeTask(spec, () => {}, ["--bogus"], io), 2);
 * assert.deepEqual(lines, ["error: x.json is damaged", "error: Unknown option '--bogus'\nusage: deno task x [flags] (--help lists every flag)"]);
 * ```
 */
export async function executeTask<F extends Readonly<Record<string, FlagSpec>>>(
  spec: TaskSpec & { flags: F },
  main: (args: TaskArgs<F>) => Promise<number | void> | number | void,
  args: readonly string[],
  io: TaskIo = { out: (t) => console.log(t), err: (t) => console.error(t) },
  shared: Readonly<Record<string, SharedFlagSpec>> = SHARED_FLAGS,
): Promise<number> {
  try {
    const parsed = parseTaskArgs(spec, args, shared);
    if (parsed.flags.help) {
      io.out(taskHelp(spec, shared));
      return 0;
    }
    const values = parsed.flags as Record<string, unknown>;
    for (const [name, f] of Object.entries(shared)) await f.apply?.(values[name]);
    return (await main(parsed)) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}\n${usageLine(spec)} (--help lists every flag)`);
      return e.exitCode;
    }
    if (e instanceof DataError) {
      io.err(`error: ${e.message}`);
      return e.exitCode;
    }
    throw e;
  }
}

/**
 * A task's entry point: {@linkcode executeTask} on `Deno.args`; exits with
 * its code when it is not 0 (a task that ends well ends as its body does).
 *
 * Source: see {@linkcode executeTask}.
 *
 * @param spec The task.
 * @param main The task's body.
 * @returns Nothing (the process exits on a failure).
 *
 * @example A task run on this process's command line (none here: the flags' defaults reach the body).
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTask } from "./task.ts";
 *
 * let doubled = 0;
 * const spec = { name: "deno task double", summary: "Doubles N.", flags: { n: { type: "integer", min: 0, default: 21, help: "N" } } } as const;
 * await runTask(spec, ({ flags }) => void (doubled = flags.n * 2));
 * assert.equal(doubled, 42);
 * ```
 */
export async function runTask<F extends Readonly<Record<string, FlagSpec>>>(
  spec: TaskSpec & { flags: F },
  main: (args: TaskArgs<F>) => Promise<number | void> | number | void,
): Promise<void> {
  const code = await executeTask(spec, main, Deno.args);
  if (code !== 0) Deno.exit(code);
}

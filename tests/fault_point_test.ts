import assert from "node:assert/strict";

const module = new URL("../lib/fault_point.ts", import.meta.url).href;

/** Runs three hits of point "a" and one of "b" in a child process, printing after each. */
async function child(spec: string): Promise<{ code: number; signal: Deno.Signal | null; out: string }> {
  const code = `import { faultPoint } from "${module}";
Deno.addSignalListener("SIGINT", () => console.log("sigint"));
for (const p of ["a", "b", "a", "a"]) { faultPoint(p); console.log(p); await new Promise((r) => setTimeout(r, 50)); }
Deno.exit(0);`;
  const r = await new Deno.Command(Deno.execPath(), { args: ["eval", code], env: { MEMPO_FAULT: spec } }).output();
  return {
    code: r.code,
    signal: r.signal,
    out: new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr),
  };
}

Deno.test("faultPoint(): dies at the n-th hit of its point, sends the signal asked for, ignores other points", async () => {
  const second = await child("a@2");
  assert.equal(second.signal, "SIGKILL");
  assert.equal(second.out, "a\nb\n"); // killed at the second "a", before it printed
  const first = await child("b");
  assert.equal(first.out, "a\n");
  const interrupt = await child("a@3:SIGINT");
  assert.equal(interrupt.code, 0);
  // the handler runs once the signal arrives (asynchronously): the process lives on
  assert.equal(interrupt.out.replace("sigint\n", ""), "a\nb\na\na\n");
  assert.match(interrupt.out, /^a\nb\na\n(a\n)?sigint\n/);
  const unarmed = await child("");
  assert.equal(unarmed.out, "a\nb\na\na\n");
  const bad = await child("a@x");
  assert.equal(bad.code, 1);
  assert.match(bad.out, /Invalid MEMPO_FAULT: must be point\[@n\]\[:SIGNAL\], current value is "a@x"/);
});

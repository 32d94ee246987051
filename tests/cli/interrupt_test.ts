import assert from "node:assert/strict";
import { taskStderr } from "../_subprocess.ts";

const module = new URL("../../lib/cli/interrupt.ts", import.meta.url).href;

Deno.test("onInterrupt(): the first SIGINT asks to stop (one line), the second exits 130 at once", async () => {
  const script = `
    import { onInterrupt } from ${JSON.stringify(module)};
    const interrupt = onInterrupt("saving a checkpoint");
    console.log("before", interrupt.stopped());
    Deno.kill(Deno.pid, "SIGINT");
    await new Promise((r) => setTimeout(r, 200));
    console.log("after one", interrupt.stopped());
    Deno.kill(Deno.pid, "SIGINT");
    await new Promise((r) => setTimeout(r, 2000));
    console.log("not reached");
  `;
  const out = await new Deno.Command(Deno.execPath(), { args: ["eval", script], stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder();
  assert.equal(out.code, 130);
  assert.equal(text.decode(out.stdout), "before false\nafter one true\n");
  assert.equal(taskStderr(out.stderr), "\ninterrupted: saving a checkpoint (Ctrl-C again to quit now)\n");
});

Deno.test("onInterrupt(): dispose() removes the listener (no signal listener left for the test sanitizer)", async () => {
  const { onInterrupt } = await import(module);
  const interrupt = onInterrupt("x");
  assert.equal(interrupt.stopped(), false);
  interrupt.dispose();
});

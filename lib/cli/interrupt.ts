/**
 * Ctrl-C for a long task: the first SIGINT asks the task to stop at its next
 * checkpoint (it saves and exits 130, resumable), a second one quits at once.
 *
 * @module
 */

/** A SIGINT listener and whether it has fired. */
export interface Interrupt {
  /** Whether Ctrl-C has been pressed (the task's `shouldStop`). */
  stopped(): boolean;
  /** Removes the listener. */
  dispose(): void;
}

/**
 * Listens for SIGINT: the first one sets {@linkcode Interrupt.stopped} and
 * prints `message`; a second one exits with 130 at once.
 *
 * ```text
 * SIGINT #1 → stopped() = true, "interrupted: <message> (Ctrl-C again to quit now)" on stderr
 * SIGINT #2 → Deno.exit(130)
 * ```
 *
 * Source: this package (the shell's convention: 128 + SIGINT's number 2 = 130).
 *
 * @param message What the task does before it stops ("saving a checkpoint").
 * @returns The listener's handle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { onInterrupt } from "./interrupt.ts";
 *
 * const interrupt = onInterrupt("saving a checkpoint");
 * assert.equal(interrupt.stopped(), false);
 * interrupt.dispose();
 * ```
 */
export function onInterrupt(message: string): Interrupt {
  let interrupted = false;
  const listener = () => {
    if (interrupted) Deno.exit(130);
    interrupted = true;
    console.error(`\ninterrupted: ${message} (Ctrl-C again to quit now)`);
  };
  Deno.addSignalListener("SIGINT", listener);
  return { stopped: () => interrupted, dispose: () => Deno.removeSignalListener("SIGINT", listener) };
}

/**
 * Shutdown: on process exit (`unload`), SIGINT, SIGTERM and SIGHUP (or an
 * abort signal that stands for them), every process group the runtime's
 * session started is killed, so nothing it started outlives it.
 *
 * @module
 */
import type { Session } from "../session/session.ts";
import { existingGroups } from "./tracker.ts";

/**
 * Options of {@link installShutdownHandlers}.
 *
 * @example
 * ```ts
 * import { createRuntime } from "../../mod.ts";
 * import { installShutdownHandlers, type ShutdownOptions } from "./shutdown.ts";
 * await using rt = createRuntime({ roots: [Deno.cwd()], tools: [] });
 * const controller = new AbortController();
 * const options: ShutdownOptions = { signals: [], exit: false, signal: controller.signal };
 * const remove = installShutdownHandlers(rt, options);
 * remove();
 * ```
 */
export interface ShutdownOptions {
  /** Signals to handle. Default SIGINT, SIGTERM and SIGHUP. */
  signals?: readonly Deno.Signal[];
  /** Exit the process (code 128 + signal number) once the runtime closed after a signal. Default true. */
  exit?: boolean;
  /**
   * Also kill every group when this signal aborts (the CLI's own SIGINT/SIGTERM signal), without
   * exiting: the owner of the signal decides how the process ends.
   */
  signal?: AbortSignal;
}

const SIGNAL_NUMBERS: Partial<Record<Deno.Signal, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/**
 * Installs the handlers for `runtime` (anything with a session and a
 * `close`); returns a function that removes them (also run when the session
 * closes). On a signal the runtime is closed (groups get SIGTERM, then
 * SIGKILL after the grace period) and the process exits; a second signal
 * while closing kills at once. On `unload` (any exit) the groups still alive
 * are killed synchronously.
 *
 * @example
 * ```ts
 * import { Session } from "../session/session.ts";
 * import { installShutdownHandlers } from "./shutdown.ts";
 * const session = new Session({ roots: [Deno.cwd()] });
 * const remove = installShutdownHandlers({ session, close: () => session.close() });
 * remove();
 * await session.close();
 * ```
 */
export function installShutdownHandlers(
  runtime: { session: Session; close(): Promise<void> },
  options: ShutdownOptions = {},
): () => void {
  const signals = options.signals ?? ["SIGINT", "SIGTERM", "SIGHUP"];
  const exit = options.exit ?? true;
  const killNow = () => existingGroups(runtime.session)?.killAllSync();
  let closing = false;
  const installed: Array<[Deno.Signal, () => void]> = [];
  for (const sig of signals) {
    const handler = () => {
      const code = 128 + (SIGNAL_NUMBERS[sig] ?? 15);
      if (closing) {
        killNow();
        if (exit) Deno.exit(code);
        return;
      }
      closing = true;
      runtime.close().catch(() => killNow()).finally(() => {
        if (exit) Deno.exit(code);
      });
    };
    try {
      Deno.addSignalListener(sig, handler);
      installed.push([sig, handler]);
    } catch {
      // this platform does not have the signal
    }
  }
  const onUnload = () => killNow();
  globalThis.addEventListener("unload", onUnload);
  const onAbort = () => {
    existingGroups(runtime.session)?.killAll().catch(() => killNow());
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    globalThis.removeEventListener("unload", onUnload);
    options.signal?.removeEventListener("abort", onAbort);
    for (const [sig, handler] of installed) {
      try {
        Deno.removeSignalListener(sig, handler);
      } catch {
        // already gone
      }
    }
  };
  runtime.session.addCleanup(remove);
  return remove;
}

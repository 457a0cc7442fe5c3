/**
 * MCP over stdio, on Deno APIs: a client transport that runs the server as a
 * child process (`Deno.Command`), and a server transport over any byte
 * stream and writer (the CLI's stdin and stdout).
 *
 * Written here instead of using the SDK's stdio transports because those read
 * `process.env` and `process.stdin` directly and never report the child's exit
 * status or stderr; Paddock needs all three for its injected environment and
 * its error messages ("exited with code 1: <stderr>"). Framing and message
 * validation still come from the SDK (`serializeMessage`, `deserializeMessage`),
 * imported when the first transport starts.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import type * as SdkStdio from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { lines } from "../streams.ts";

let framing: typeof SdkStdio | undefined;

/** The SDK's framing and message validation, imported when the first transport starts (not with this module). */
async function loadFraming(): Promise<typeof SdkStdio> {
  framing ??= await import("@modelcontextprotocol/sdk/shared/stdio.js") as typeof SdkStdio;
  return framing;
}

/** How much of a server's stderr is kept for error messages (characters). */
export const STDERR_TAIL_CHARS = 4_000;
/** How long `close()` waits for a child to exit after its stdin closes, then after SIGTERM (ms). */
export const CLOSE_GRACE_MS = 2_000;

/** Hands each non-empty line of a byte stream to `onLine`, a CRLF's `\r` dropped. */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  for await (const line of lines(stream, signal)) {
    if (line.trim() !== "") onLine(line.replace(/\r$/, ""));
  }
}

/** What {@link ChildProcessTransport} starts. */
export interface ChildProcessParams {
  /** Program. */
  command: string;
  /** Arguments. */
  args: readonly string[];
  /** The child's whole environment (nothing else is inherited). */
  env: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** Receives the child's stderr as it arrives. */
  onStderr?: (text: string) => void;
}

/**
 * Client transport: runs an MCP server as a child process and speaks
 * newline-delimited JSON-RPC over its stdin and stdout.
 *
 * @example
 * ```ts
 * import { ChildProcessTransport } from "./stdio.ts";
 * const t = new ChildProcessTransport({ command: "true", args: [], env: {} });
 * console.assert(t.exitStatus === undefined);
 * ```
 */
export class ChildProcessTransport implements Transport {
  /** Called once when the child has exited and its output is drained. */
  onclose?: () => void;
  /** Called for unreadable messages and write failures. */
  onerror?: (error: Error) => void;
  /** Called for each message from the server. */
  onmessage?: (message: JSONRPCMessage) => void;
  #params: ChildProcessParams;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #stderr = "";
  #status?: Deno.CommandStatus;
  #done?: Promise<void>;
  #encoder = new TextEncoder();

  /** Creates the transport; nothing runs until `start()`. */
  constructor(params: ChildProcessParams) {
    this.#params = params;
  }

  /** The child's exit status once it has exited. */
  get exitStatus(): Deno.CommandStatus | undefined {
    return this.#status;
  }

  /** Resolves once the child has exited and its output is drained (at once when it never started). */
  get exited(): Promise<void> {
    return this.#done ?? Promise.resolve();
  }

  /** Waits up to `ms` for the child to exit; returns whether it did. */
  waitForExit(ms: number): Promise<boolean> {
    return settlesWithin(this.exited, ms);
  }

  /** The last {@link STDERR_TAIL_CHARS} characters the child wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr;
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Spawns the child. Throws when the program cannot be started. */
  async start(): Promise<void> {
    if (this.#child) throw new Error("The transport is already started");
    const { deserializeMessage } = framing ?? await loadFraming();
    if (this.#child) throw new Error("The transport is already started");
    const p = this.#params;
    const child = new Deno.Command(p.command, {
      args: [...p.args],
      env: p.env,
      clearEnv: true,
      cwd: p.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // its own session: a Ctrl-C at the terminal stops the current turn, not the MCP servers;
      // the server still ends when its stdin closes with us, and close() signals it
      detached: true,
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#writer.closed.catch(() => {});
    const out = readLines(child.stdout, (line) => {
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (err) {
        this.onerror?.(
          new Error(`The server wrote a line that is not JSON-RPC: ${line.slice(0, 200)}`, { cause: err }),
        );
        return;
      }
      this.onmessage?.(message);
    }).catch((err) => this.onerror?.(err));
    const err = readLines(child.stderr, (line) => {
      this.#stderr = (this.#stderr + line + "\n").slice(-STDERR_TAIL_CHARS);
      p.onStderr?.(line);
    }).catch(() => {});
    this.#done = Promise.all([child.status, out, err]).then(([status]) => {
      this.#status = status;
      this.#child = undefined;
      this.onclose?.();
    });
  }

  /** Writes one message to the child's stdin. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#status) throw new Error("Not connected: the server process is not running");
    const { serializeMessage } = framing ?? await loadFraming();
    await this.#writer.write(this.#encoder.encode(serializeMessage(message)));
  }

  /** Closes stdin, then sends SIGTERM and SIGKILL to a child that does not exit; resolves once it has. */
  async close(): Promise<void> {
    const child = this.#child;
    const done = this.#done;
    if (!child || !done) return;
    await this.#writer?.close().catch(() => {});
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await settlesWithin(done, CLOSE_GRACE_MS)) return;
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
    }
    await done;
  }
}

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Server transport over a byte stream (requests in) and a text writer
 * (responses out), for `paddock mcp` on stdin and stdout.
 *
 * @example
 * ```ts
 * import { StreamServerTransport } from "./stdio.ts";
 * const sent: string[] = [];
 * const t = new StreamServerTransport(new ReadableStream({ start: (c) => c.close() }), (s) => void sent.push(s));
 * await t.start();
 * await t.send({ jsonrpc: "2.0", method: "ping" });
 * console.assert(sent[0] === '{"jsonrpc":"2.0","method":"ping"}\n');
 * await t.close();
 * ```
 */
export class StreamServerTransport implements Transport {
  /** Called once when the input ends or `close()` is called. */
  onclose?: () => void;
  /** Called for unreadable input lines. */
  onerror?: (error: Error) => void;
  /** Called for each message from the client. */
  onmessage?: (message: JSONRPCMessage) => void;
  #input: ReadableStream<Uint8Array>;
  #write: (text: string) => void | Promise<void>;
  #reader?: Promise<void>;
  #closed = false;
  #abort = new AbortController();

  /** Creates the transport over `input` and `write`. */
  constructor(input: ReadableStream<Uint8Array>, write: (text: string) => void | Promise<void>) {
    this.#input = input;
    this.#write = write;
  }

  /** Starts reading the input. */
  async start(): Promise<void> {
    const { deserializeMessage } = framing ?? await loadFraming();
    this.#reader = readLines(this.#input, (line) => {
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (err) {
        this.onerror?.(new Error(`Unreadable input line: ${line.slice(0, 200)}`, { cause: err }));
        return;
      }
      this.onmessage?.(message);
    }, this.#abort.signal).catch(() => {}).finally(() => this.#finish());
  }

  /** Resolves when the input has ended. */
  get finished(): Promise<void> {
    return this.#reader ?? Promise.resolve();
  }

  /** Writes one message. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("Not connected: the transport is closed");
    const { serializeMessage } = framing ?? await loadFraming();
    await this.#write(serializeMessage(message));
  }

  /** Stops reading and reports the close. */
  async close(): Promise<void> {
    this.#abort.abort();
    await this.#reader;
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

/**
 * A tool is a value: a name, a description, a Zod strict-object schema, a
 * side-effect class and an `execute` function.
 *
 * @module
 */
import type { ZodType } from "./_zod_types.ts";
import { isSideEffect, SIDE_EFFECTS, type SideEffect } from "../permissions/side_effect.ts";
import type { Session } from "../session/session.ts";

// the classes live in a leaf below the session; importers of this module keep finding them here
export { isReadOnly, SIDE_EFFECTS, type SideEffect } from "../permissions/side_effect.ts";

/**
 * Image content a tool can return alongside its text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, runTool, ToolRegistry } from "../../mod.ts";
 * const pixel = defineTool({
 *   name: "Pixel",
 *   description: "Returns a one-pixel PNG",
 *   sideEffect: "None",
 *   input: z.strictObject({}),
 *   execute: () =>
 *     Promise.resolve({
 *       text: "A 1x1 PNG",
 *       images: [{
 *         mediaType: "image/png",
 *         data:
 *           "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
 *       }],
 *     }),
 * });
 * const r = await runTool(new ToolRegistry([pixel]), { name: "Pixel", input: {} });
 * assert.equal(r.images?.[0].mediaType, "image/png");
 * ```
 */
export interface ImageContent {
  /** Base64-encoded bytes. */
  data: string;
  /** Media type such as `image/png`. */
  mediaType: string;
}

/**
 * What `execute` returns: text for the model and a typed object for code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, runTool, ToolRegistry } from "../../mod.ts";
 * const count = defineTool({
 *   name: "CountWords",
 *   description: "Counts the words of a text",
 *   sideEffect: "None",
 *   input: z.strictObject({ text: z.string().describe("The text") }),
 *   execute: (input) => {
 *     const words = input.text.split(/\s+/).filter(Boolean).length;
 *     return Promise.resolve({ text: `${words} words`, data: { words } });
 *   },
 * });
 * const r = await runTool(new ToolRegistry([count]), {
 *   name: "CountWords",
 *   input: { text: "one two three" },
 * });
 * assert.equal(r.text, "3 words");
 * assert.deepEqual(r.data, { words: 3 });
 * ```
 */
export interface ToolOutput<S = unknown> {
  /** Text for the model. */
  text: string;
  /** Structured result for library users, hooks and the CLI. */
  data?: S;
  /** Images for models that accept them. */
  images?: ImageContent[];
}

/**
 * Everything a tool may touch, injected so tests can pass fakes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, runTool, Session, ToolRegistry } from "../../mod.ts";
 * const where = defineTool({
 *   name: "Where",
 *   description: "Says where the session works",
 *   sideEffect: "None",
 *   input: z.strictObject({}),
 *   execute: (_input, ctx) => Promise.resolve(`${ctx.cwd} (${ctx.roots.length} root)`),
 * });
 * await using session = new Session({ roots: ["/work/project"] });
 * const r = await runTool(new ToolRegistry([where]), { name: "Where", input: {} }, { session });
 * assert.equal(r.text, "/work/project (1 root)");
 * ```
 */
export interface ToolContext {
  /** The session's working directory (absolute). */
  readonly cwd: string;
  /** Workspace roots (absolute, symlinks resolved). */
  readonly roots: readonly string[];
  /** Aborted when the call is cancelled or times out. */
  readonly signal: AbortSignal;
  /** Streams partial output (Bash chunks, progress) as it arrives. */
  readonly onOutput: (chunk: string) => void;
  /** Per-session state: read records, tasks, todos, mode, output folder. */
  readonly session: Session;
  /** Id of this call (unique within the session). */
  readonly callId: string;
  /** The fetch to use for network access. */
  readonly fetch: typeof fetch;
  /** Current time in ms since the epoch. */
  readonly now: () => number;
  /** Environment variables visible to tools. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * A tool definition, as registered.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, type Tool } from "../../mod.ts";
 * const shout: Tool<{ text: string }, string> = defineTool({
 *   name: "Shout",
 *   description: "Upper-cases a text",
 *   sideEffect: "None",
 *   input: z.strictObject({ text: z.string().describe("The text") }),
 *   execute: (input) => Promise.resolve({ text: input.text.toUpperCase(), data: input.text.toUpperCase() }),
 *   summarize: (input) => input.text,
 * });
 * assert.equal(shout.summarize?.({ text: "hi" }), "hi");
 * assert.ok(shout.input.safeParse({ text: "hi" }).success);
 * ```
 */
// deno-lint-ignore no-explicit-any
export interface Tool<I = any, S = unknown> {
  /** Wire name, PascalCase for built-ins (`WebFetch`), `mcp__server__tool` for MCP. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** Side-effect class: drives permissions and Deno flags. */
  readonly sideEffect: SideEffect;
  /** Input schema (a Zod strict object for built-ins). */
  readonly input: ZodType<I>;
  /** Runs the tool. Throw typed errors; the runner turns them into results. */
  readonly execute: (input: I, ctx: ToolContext) => Promise<ToolOutput<S> | string>;
  /** Cap on the text given to the model before truncation (characters). */
  readonly maxOutputChars?: number;
  /** Default time limit for one call (ms); the runner aborts past it. */
  readonly timeoutMs?: number;
  /** A JSON Schema to use instead of the one derived from `input` (MCP tools). */
  readonly jsonSchema?: Record<string, unknown>;
  /** Programs this tool runs, for the Deno flag computation (`bash`, an rg path…). */
  readonly programs?: readonly string[];
  /** A one-line summary of a call for logs and prompts (the path, the command…). */
  readonly summarize?: (input: I) => string;
  /**
   * The side-effect class of one call, when it depends on the input (Config:
   * a read is ReadOnly, a set is Mutating). The runner decides permissions
   * with it; `sideEffect` stays the tool's highest class, used for Deno flags,
   * registry views and parallelism.
   */
  readonly sideEffectOf?: (input: I) => SideEffect;
}

/**
 * The options {@link defineTool} takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, type ToolSpec } from "../../mod.ts";
 * const spec: ToolSpec<{ n: number }, number> = {
 *   name: "Double",
 *   description: "Doubles a number",
 *   sideEffect: "None",
 *   input: z.strictObject({ n: z.number().describe("The number") }),
 *   execute: (input) => Promise.resolve({ text: String(input.n * 2), data: input.n * 2 }),
 * };
 * assert.equal(defineTool(spec).name, "Double");
 * ```
 */
export type ToolSpec<I, S> = Tool<I, S>;

/**
 * Defines a tool. Returns a plain object; nothing is registered.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool } from "./define_tool.ts";
 * const echo = defineTool({
 *   name: "Echo",
 *   description: "Repeats its input",
 *   sideEffect: "None",
 *   input: z.strictObject({ text: z.string().describe("What to repeat") }),
 *   execute: (input) => Promise.resolve(input.text),
 * });
 * assert.equal(echo.name, "Echo");
 * ```
 */
export function defineTool<I, S = unknown>(spec: ToolSpec<I, S>): Tool<I, S> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)) {
    throw new TypeError(
      `Invalid tool name "${spec.name}": use 1 to 64 characters from [a-zA-Z0-9_-]`,
    );
  }
  if (!isSideEffect(spec.sideEffect)) {
    throw new TypeError(
      `Invalid side effect "${spec.sideEffect}" for tool "${spec.name}": use one of ${
        SIDE_EFFECTS.join(", ")
      }`,
    );
  }
  return Object.freeze({ ...spec });
}

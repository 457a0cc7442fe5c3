/**
 * The tool registry: names, aliases, allowed and disabled sets, filtered views
 * and the OpenAI-format definitions given to the model.
 *
 * @module
 */
import { z } from "zod";
import { ToolNotFoundError } from "../errors.ts";
import { defineTool, isReadOnly, type SideEffect, type Tool, type ToolContext } from "./define_tool.ts";
import { type JsonSchema, toJsonSchema } from "./json_schema.ts";
import type { ZodType } from "./_zod_types.ts";

/**
 * Old and alternative names accepted on input, mapped to the canonical name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOOL_ALIASES } from "./registry.ts";
 * assert.equal(TOOL_ALIASES.KillShell, "TaskStop");
 * ```
 */
export const TOOL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  Task: "Agent",
  KillShell: "TaskStop",
  BashOutput: "TaskOutput",
  AgentOutput: "TaskOutput",
  ListMcpResourcesTool: "ListMcpResources",
  ReadMcpResourceTool: "ReadMcpResource",
});

/**
 * An OpenAI chat-completions tool definition.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, type ToolDefinition, ToolRegistry } from "../../mod.ts";
 * const registry = new ToolRegistry([defineTool({
 *   name: "Ping",
 *   description: "Answers pong",
 *   sideEffect: "None",
 *   input: z.strictObject({}),
 *   execute: () => Promise.resolve("pong"),
 * })]);
 * const [definition]: ToolDefinition[] = registry.definitions();
 * assert.equal(definition.function.name, "Ping");
 * assert.equal(definition.function.parameters.type, "object");
 * ```
 */
export interface ToolDefinition {
  /** Always `function`. */
  type: "function";
  /** The function. */
  function: {
    /** Wire name. */
    name: string;
    /** Description for the model. */
    description: string;
    /** JSON Schema of the arguments. */
    parameters: JsonSchema;
  };
}

/**
 * Filters for {@link ToolRegistry.view}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, ToolRegistry, type ViewFilter } from "../../mod.ts";
 * const readOnly: ViewFilter = { readOnly: true };
 * const view = new ToolRegistry(builtinTools()).view(readOnly);
 * assert.ok(view.names().includes("Read"));
 * assert.ok(!view.names().includes("Bash"));
 * ```
 */
export interface ViewFilter {
  /** Keep only None and ReadOnly tools. */
  readOnly?: boolean;
  /** Drop Mutating, Execute, Network and Spawns tools. */
  excludeDangerous?: boolean;
  /** Keep only these names. */
  include?: readonly string[];
  /** Drop these names. */
  exclude?: readonly string[];
  /** Drop these side-effect classes. */
  excludeSideEffects?: readonly SideEffect[];
}

const DANGEROUS: readonly SideEffect[] = ["Mutating", "Execute", "Network", "Spawns"];

/**
 * A tool known by what the permission check needs (name, side-effect class,
 * programs) and loaded on first use: see {@link ToolRegistry.registerLazy}.
 * `load` must give the same name, class and programs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type LazyTool, ToolRegistry } from "./registry.ts";
 * const read: LazyTool = {
 *   name: "Read",
 *   sideEffect: "ReadOnly",
 *   load: async () => (await import("../tools/read/read.ts")).readTool,
 * };
 * const registry = new ToolRegistry().registerLazy(read);
 * assert.ok(registry.has("Read") && !registry.isLoaded("Read"));
 * await registry.load();
 * assert.ok(registry.isLoaded("Read"));
 * ```
 */
export interface LazyTool {
  /** Wire name. */
  readonly name: string;
  /** Side-effect class. */
  readonly sideEffect: SideEffect;
  /** Programs the tool runs. */
  readonly programs?: readonly string[];
  /** Imports and makes the tool. */
  load(): Promise<Tool>;
}

/** What a lazy entry shows until it is loaded: the metadata, and fields that say to load it. */
function placeholder(entry: LazyTool): Tool {
  const notLoaded = (): never => {
    throw new TypeError(`Tool "${entry.name}" is not loaded: await registry.load("${entry.name}") first`);
  };
  return Object.freeze({
    name: entry.name,
    sideEffect: entry.sideEffect,
    ...(entry.programs ? { programs: entry.programs } : {}),
    get description(): string {
      return notLoaded();
    },
    get input(): ZodType {
      return notLoaded();
    },
    get execute(): Tool["execute"] {
      return notLoaded();
    },
  });
}

/**
 * Holds tools by name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, ToolRegistry } from "../../mod.ts";
 * const reg = new ToolRegistry();
 * reg.register(defineTool({
 *   name: "Ping",
 *   description: "Answers pong",
 *   sideEffect: "None",
 *   input: z.strictObject({}),
 *   execute: () => Promise.resolve("pong"),
 * }));
 * assert.equal(reg.definitions()[0].function.name, "Ping");
 * ```
 */
export class ToolRegistry {
  #tools = new Map<string, Tool>();
  #schemas = new Map<string, JsonSchema>();
  #allowed = new Set<string>();
  #disabled = new Map<string, string>();
  #listeners = new Set<() => void>();
  #removed = new Map<string, string>();
  #lazy = new Map<string, LazyTool>();
  #loading = new Map<string, Promise<void>>();

  /** Creates a registry holding `tools`. */
  constructor(tools: readonly Tool[] = []) {
    this.registerAll(tools);
  }

  /** Adds a tool; a name already taken throws. */
  register(tool: Tool): this {
    if (this.#tools.has(tool.name)) throw new TypeError(`A tool named "${tool.name}" is already registered`);
    if (tool.name in TOOL_ALIASES) {
      throw new TypeError(`"${tool.name}" is an alias of "${TOOL_ALIASES[tool.name]}"`);
    }
    this.#tools.set(tool.name, tool);
    this.#removed.delete(tool.name);
    this.#changed();
    return this;
  }

  /**
   * Adds a tool whose module loads on first use: until {@link load} loads it,
   * the registry knows its name, class and programs (names, aliases, views,
   * allowed and disabled sets, the permission check all work), and reading its
   * description, input or execute throws. `createRuntime` registers the
   * built-in tools this way and loads each before its first call.
   */
  registerLazy(entry: LazyTool): this {
    this.register(placeholder(entry));
    this.#lazy.set(entry.name, entry);
    return this;
  }

  /** Whether a registered tool is loaded (every tool not added with {@link registerLazy} is). */
  isLoaded(name: string): boolean {
    const canonical = this.resolve(name);
    return canonical !== undefined && !this.#lazy.has(canonical);
  }

  /**
   * Loads the named lazy tools (names and aliases; unknown names are
   * skipped), or every one when no name is given. Needed before reading a lazy
   * tool's definition or running it through `runTool` directly.
   */
  async load(...names: string[]): Promise<void> {
    const wanted = names.length ? names.map((n) => this.resolve(n) ?? n) : [...this.#lazy.keys()];
    await Promise.all(wanted.map((name) => this.#loadOne(name)));
  }

  #loadOne(name: string): Promise<void> {
    const entry = this.#lazy.get(name);
    if (!entry) return Promise.resolve();
    let loading = this.#loading.get(name);
    if (loading) return loading;
    loading = entry.load().then((tool) => {
      if (tool.name !== entry.name || tool.sideEffect !== entry.sideEffect) {
        throw new TypeError(
          `Lazy tool "${entry.name}" (${entry.sideEffect}) loaded as "${tool.name}" (${tool.sideEffect})`,
        );
      }
      // unless unregistered meanwhile, the tool takes the placeholder's place (and position)
      if (this.#lazy.get(name) !== entry) return;
      this.#lazy.delete(name);
      this.#tools.set(name, tool);
    }).finally(() => this.#loading.delete(name));
    this.#loading.set(name, loading);
    return loading;
  }

  /** Adds several tools. */
  registerAll(tools: Iterable<Tool>): this {
    for (const t of tools) this.register(t);
    return this;
  }

  /** Removes a tool; returns whether it was there. With a `reason`, later calls to it are told why it is gone. */
  unregister(name: string, reason?: string): boolean {
    const had = this.#tools.delete(name);
    this.#lazy.delete(name);
    if (had && reason !== undefined) this.#removed.set(name, reason);
    this.#schemas.delete(name);
    this.#allowed.delete(name);
    this.#disabled.delete(name);
    if (had) this.#changed();
    return had;
  }

  /** Removes every tool whose name starts with `prefix` (`mcp__server__`), with an optional `reason`; returns their names. */
  unregisterPrefix(prefix: string, reason?: string): string[] {
    const gone = this.names().filter((n) => n.startsWith(prefix));
    for (const n of gone) this.unregister(n, reason);
    return gone;
  }

  /** Why a tool unregistered with a reason is gone (the runner tells callers), or undefined. */
  removedReason(name: string): string | undefined {
    return this.#tools.has(name) ? undefined : this.#removed.get(name);
  }

  /** The canonical name for a name or alias, or undefined. */
  resolve(name: string): string | undefined {
    if (this.#tools.has(name)) return name;
    const alias = TOOL_ALIASES[name];
    return alias && this.#tools.has(alias) ? alias : undefined;
  }

  /** The tool for a name or alias, or undefined. */
  get(name: string): Tool | undefined {
    const canonical = this.resolve(name);
    return canonical === undefined ? undefined : this.#tools.get(canonical);
  }

  /** The tool for a name or alias; throws {@link ToolNotFoundError} naming the closest tools. */
  require(name: string): Tool {
    const tool = this.get(name);
    if (!tool) throw new ToolNotFoundError(name, this.closest(name));
    return tool;
  }

  /** Whether a name or alias is registered. */
  has(name: string): boolean {
    return this.resolve(name) !== undefined;
  }

  /** Registered names in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Registered tools in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** Marks tools as allowed without asking. */
  allow(...names: string[]): this {
    names.forEach((n) => this.#allowed.add(this.resolve(n) ?? n));
    return this;
  }

  /** The allowed set. */
  get allowed(): ReadonlySet<string> {
    return this.#allowed;
  }

  /** Hides a tool from the model and refuses its calls, with a reason. */
  disable(name: string, reason = "disabled"): this {
    this.#disabled.set(this.resolve(name) ?? name, reason);
    this.#changed();
    return this;
  }

  /** Undoes {@link disable}. */
  enable(name: string): this {
    if (this.#disabled.delete(this.resolve(name) ?? name)) this.#changed();
    return this;
  }

  /** Why a tool is disabled, or undefined when it is enabled. */
  disabledReason(name: string): string | undefined {
    return this.#disabled.get(this.resolve(name) ?? name);
  }

  /** Enabled tools in registration order. */
  enabled(): Tool[] {
    return this.list().filter((t) => !this.#disabled.has(t.name));
  }

  /** A new registry with the tools that pass `filter` (allowed and disabled sets carried over). */
  view(filter: ViewFilter): ToolRegistry {
    const keep = this.list().filter((t) => {
      if (filter.readOnly && !isReadOnly(t.sideEffect)) return false;
      if (filter.excludeDangerous && DANGEROUS.includes(t.sideEffect)) return false;
      if (filter.excludeSideEffects?.includes(t.sideEffect)) return false;
      if (filter.include && !filter.include.some((n) => (this.resolve(n) ?? n) === t.name)) return false;
      if (filter.exclude?.some((n) => (this.resolve(n) ?? n) === t.name)) return false;
      return true;
    });
    const view = new ToolRegistry();
    for (const t of keep) {
      const lazy = this.#lazy.get(t.name);
      if (lazy) view.registerLazy(lazy);
      else view.register(t);
    }
    for (const n of this.#allowed) if (view.has(n)) view.allow(n);
    for (const [n, why] of this.#disabled) if (view.has(n)) view.disable(n, why);
    return view;
  }

  /** The JSON Schema of a tool's input (cached). */
  schemaOf(name: string): JsonSchema {
    const tool = this.require(name);
    let schema = this.#schemas.get(tool.name);
    if (!schema) {
      schema = tool.jsonSchema ?? toJsonSchema(tool.input);
      this.#schemas.set(tool.name, schema);
    }
    return schema;
  }

  /** OpenAI-format definitions of the enabled tools, in registration order. */
  definitions(): ToolDefinition[] {
    return this.enabled().map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: this.schemaOf(t.name) },
    }));
  }

  /** Registered names closest to `name` (case-insensitive edit distance), best first. */
  closest(name: string, max = 3): string[] {
    const lower = name.toLowerCase();
    return this.names()
      .map((n) => ({ n, d: editDistance(lower, n.toLowerCase()) }))
      .filter(({ n, d }) => d <= Math.max(2, Math.floor(n.length / 2)) || n.toLowerCase().includes(lower))
      .sort((a, b) => a.d - b.d)
      .slice(0, max)
      .map(({ n }) => n);
  }

  /** Calls `listener` after every registration change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const l of this.#listeners) l();
  }
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/**
 * A tool in the AI SDK's shape (a record keyed by name).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { type AiSdkToolLike, fromAiSdkTools } from "./registry.ts";
 * const weather: AiSdkToolLike = {
 *   description: "The weather in a city",
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: (input: { city: string }) => Promise.resolve({ city: input.city, celsius: 21 }),
 * };
 * const [tool] = fromAiSdkTools({ weather }, "Network");
 * assert.equal(tool.name, "weather");
 * ```
 */
export interface AiSdkToolLike {
  /** Description. */
  description?: string;
  /** Zod input schema (`inputSchema` in AI SDK 5, `parameters` before). */
  inputSchema?: ZodType;
  /** Zod input schema, older name. */
  parameters?: ZodType;
  /** The function. */
  execute?: (input: never, options: { abortSignal?: AbortSignal; toolCallId: string }) => unknown;
}

/**
 * Adapts a name-keyed record of AI SDK style tools. Results that are not
 * strings are sent to the model as JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { fromAiSdkTools } from "./registry.ts";
 * const [t] = fromAiSdkTools({
 *   add: {
 *     description: "Adds",
 *     inputSchema: z.object({ a: z.number() }),
 *     execute: (i: { a: number }) => i.a + 1,
 *   },
 * }, "None");
 * assert.equal(t.name, "add");
 * ```
 */
export function fromAiSdkTools(record: Record<string, AiSdkToolLike>, sideEffect: SideEffect): Tool[] {
  return Object.entries(record).map(([name, t]) => {
    const schema = t.inputSchema ?? t.parameters ?? z.strictObject({});
    return defineTool({
      name,
      description: t.description ?? name,
      sideEffect,
      input: schema,
      execute: async (input: unknown, ctx: ToolContext) => {
        if (!t.execute) throw new TypeError(`Tool "${name}" has no execute function`);
        const out = await t.execute(input as never, { abortSignal: ctx.signal, toolCallId: ctx.callId });
        return typeof out === "string" ? out : { text: JSON.stringify(out), data: out };
      },
    });
  });
}

/**
 * A tool in LangChain's shape (an object carrying its name).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { fromLangChainTools, type LangChainToolLike } from "./registry.ts";
 * const upper: LangChainToolLike = {
 *   name: "upper",
 *   description: "Upper-cases a text",
 *   schema: z.object({ text: z.string() }),
 *   invoke: (input: { text: string }) => input.text.toUpperCase(),
 * };
 * assert.equal(fromLangChainTools([upper], "None")[0].sideEffect, "None");
 * ```
 */
export interface LangChainToolLike {
  /** Name. */
  name: string;
  /** Description. */
  description: string;
  /** Zod input schema. */
  schema: ZodType;
  /** Runs the tool. */
  invoke: (input: never, config?: { signal?: AbortSignal }) => unknown;
}

/**
 * Adapts LangChain-style tools (`{name, description, schema, invoke}`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { fromLangChainTools } from "./registry.ts";
 * const tools = fromLangChainTools([{
 *   name: "upper",
 *   description: "Upper-cases a text",
 *   schema: z.object({ text: z.string() }),
 *   invoke: (input: { text: string }) => input.text.toUpperCase(),
 * }], "None");
 * const r = await runTool(new ToolRegistry(tools), { name: "upper", input: { text: "hi" } });
 * assert.equal(r.text, "HI");
 * ```
 */
export function fromLangChainTools(tools: readonly LangChainToolLike[], sideEffect: SideEffect): Tool[] {
  return tools.map((t) =>
    defineTool({
      name: t.name,
      description: t.description,
      sideEffect,
      input: t.schema,
      execute: async (input: unknown, ctx: ToolContext) => {
        const out = await t.invoke(input as never, { signal: ctx.signal });
        return typeof out === "string" ? out : { text: JSON.stringify(out), data: out };
      },
    })
  );
}

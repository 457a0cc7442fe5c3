/**
 * MCP server tools as registry tools: the `mcp__<server>__<tool>` name, the
 * side-effect class from annotations, the JSON Schema passed through, and
 * MCP results (text, images, audio, resources) mapped to a {@link ToolOutput}.
 *
 * @module
 */
import type { CallToolResult, McpTool, ToolAnnotations } from "./_sdk_types.ts";
import { z } from "zod";
import { PaddockError } from "../errors.ts";
import {
  defineTool,
  type ImageContent,
  type SideEffect,
  type Tool,
  type ToolOutput,
} from "../tool/define_tool.ts";
import type { Session } from "../session/session.ts";

/** Every MCP tool name starts with this. */
export const MCP_TOOL_PREFIX = "mcp__";
/** Longest tool name the chat-completions wire accepts. */
export const MAX_TOOL_NAME_CHARS = 64;
/** Longest tool description kept from a server (characters). */
export const MAX_MCP_DESCRIPTION_CHARS = 4_000;

/** Replaces every character outside `[A-Za-z0-9_-]` with `_`. */
export function sanitizeMcpName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The name prefix of a server's tools, `mcp__<server>__`. */
export function mcpServerPrefix(server: string): string {
  return `${MCP_TOOL_PREFIX}${sanitizeMcpName(server)}__`;
}

/**
 * The registry name of a server tool: `mcp__<server>__<tool>`, sanitised,
 * shortened to 64 characters with a hash of the full name when longer, and
 * given a `_2`, `_3`… suffix when `taken` already holds it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcpToolName } from "./adapter.ts";
 * assert.equal(mcpToolName("my server", "get.item"), "mcp__my_server__get_item");
 * assert.equal(mcpToolName("s", "x".repeat(100)).length, 64);
 * assert.equal(mcpToolName("s", "t", (n) => n === "mcp__s__t"), "mcp__s__t_2");
 * ```
 */
export function mcpToolName(
  server: string,
  tool: string,
  taken: (name: string) => boolean = () => false,
): string {
  let base = `${mcpServerPrefix(server)}${sanitizeMcpName(tool)}`;
  if (base.length > MAX_TOOL_NAME_CHARS) {
    const hash = fnv1a(`${server}\u0000${tool}`);
    base = `${base.slice(0, MAX_TOOL_NAME_CHARS - hash.length - 1)}_${hash}`;
  }
  let name = base;
  for (let n = 2; taken(name); n++) {
    const suffix = `_${n}`;
    name = `${base.slice(0, MAX_TOOL_NAME_CHARS - suffix.length)}${suffix}`;
  }
  return name;
}

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/**
 * The side-effect class of a trusted server's tool: `readOnlyHint` → ReadOnly,
 * `destructiveHint` → Mutating, neither → Network (the conservative default).
 * An untrusted server's tools are all Network (see {@link McpToolCaller.trustAnnotations}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sideEffectFromAnnotations } from "./adapter.ts";
 * assert.equal(sideEffectFromAnnotations({ readOnlyHint: true }), "ReadOnly");
 * assert.equal(sideEffectFromAnnotations(undefined), "Network");
 * ```
 */
export function sideEffectFromAnnotations(annotations: ToolAnnotations | undefined): SideEffect {
  if (annotations?.readOnlyHint === true) return "ReadOnly";
  if (annotations?.destructiveHint === true) return "Mutating";
  return "Network";
}

/**
 * Calls one tool on its server; what {@link adaptMcpTool} needs from a connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { adaptMcpTool, type McpToolCaller } from "./adapter.ts";
 * // a caller of your own, instead of an MCP connection
 * const caller: McpToolCaller = {
 *   server: "calc",
 *   callTimeoutMs: 10_000,
 *   callTool: (_tool, args) =>
 *     Promise.resolve({ content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }] }),
 * };
 * const tool = adaptMcpTool(caller, { name: "add", inputSchema: { type: "object" } }, "mcp__calc__add");
 * const r = await runTool(new ToolRegistry([tool]), { name: "mcp__calc__add", input: { a: 2, b: 3 } }, {
 *   approver: () => Promise.resolve(true),
 * });
 * assert.equal(r.text, "5");
 * ```
 */
export interface McpToolCaller {
  /** The server's name as configured. */
  readonly server: string;
  /** Per-call time limit (ms), used as the tool's `timeoutMs`. */
  readonly callTimeoutMs: number;
  /** Programs the server runs (a stdio server's command), for the Deno flag computation. */
  readonly programs?: readonly string[];
  /**
   * Whether the server's annotations may set its tools' side-effect class (see
   * {@link sideEffectFromAnnotations}). Annotations are claims: without this every tool is `Network`.
   * @default {false}
   */
  readonly trustAnnotations?: boolean;
  /** Calls `tool` with `args`; rejects with a typed error. */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress?: (message: string) => void },
  ): Promise<CallToolResult>;
}

/**
 * Turns a server tool into a registry tool named `name`. Its JSON Schema goes
 * to the model as given; the Zod input only checks that required keys are
 * present and lets the server validate the rest.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { adaptMcpTool } from "./adapter.ts";
 * const t = adaptMcpTool(
 *   {
 *     server: "s",
 *     callTimeoutMs: 1000,
 *     callTool: () => Promise.resolve({ content: [] }),
 *   },
 *   { name: "echo", inputSchema: { type: "object", required: ["m"] } },
 *   "mcp__s__echo",
 * );
 * assert.ok(t.sideEffect === "Network" && !t.input.safeParse({}).success);
 * ```
 */
export function adaptMcpTool(caller: McpToolCaller, tool: McpTool, name: string): Tool {
  const schema: Record<string, unknown> = { ...tool.inputSchema };
  delete schema.$schema;
  if (schema.type === undefined) schema.type = "object";
  if (schema.properties === undefined) schema.properties = {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : [];
  const properties = schema.properties as Record<string, { type?: unknown }>;
  const input = z.looseObject({}).superRefine((value, ctx) => {
    for (const key of required) {
      if (!(key in value)) {
        const expected = typeof properties[key]?.type === "string"
          ? properties[key].type as string
          : "a value";
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `missing required parameter "${key}" (${expected})`,
        });
      }
    }
  });
  let description = tool.description ?? tool.annotations?.title ?? tool.title ??
    `Tool "${tool.name}" of MCP server "${caller.server}"`;
  if (description.length > MAX_MCP_DESCRIPTION_CHARS) {
    description = `${description.slice(0, MAX_MCP_DESCRIPTION_CHARS)}…`;
  }
  return defineTool({
    name,
    description,
    // a server's annotations are its own claims: they may lower the class only when the user trusts it
    sideEffect: caller.trustAnnotations === true ? sideEffectFromAnnotations(tool.annotations) : "Network",
    input,
    jsonSchema: schema,
    timeoutMs: caller.callTimeoutMs,
    ...(caller.programs?.length ? { programs: caller.programs } : {}),
    execute: async (args: Record<string, unknown>, ctx) => {
      const result = await caller.callTool(tool.name, args, {
        signal: ctx.signal,
        onProgress: (message) => ctx.onOutput(`${message}\n`),
      });
      const output = await mcpResultToOutput(result, {
        session: ctx.session,
        server: caller.server,
        signal: ctx.signal,
      });
      if (result.isError) {
        throw new PaddockError(
          "execution_failed",
          `MCP tool "${tool.name}" on server "${caller.server}" failed: ${output.text}`,
        );
      }
      return { ...output, data: { server: caller.server, tool: tool.name, ...output.data as object } };
    },
  });
}

/**
 * The structured result of an MCP tool call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { adaptMcpTool, type McpCallData } from "./adapter.ts";
 * const caller = {
 *   server: "echo",
 *   callTimeoutMs: 10_000,
 *   callTool: () =>
 *     Promise.resolve({
 *       content: [{ type: "text" as const, text: "hi" }],
 *       structuredContent: { said: "hi" },
 *     }),
 * };
 * const tool = adaptMcpTool(caller, { name: "say", inputSchema: { type: "object" } }, "mcp__echo__say");
 * const r = await runTool(new ToolRegistry([tool]), { name: "mcp__echo__say", input: {} }, {
 *   approver: () => Promise.resolve(true),
 * });
 * const data = r.data as McpCallData;
 * assert.deepEqual(data.structuredContent, { said: "hi" });
 * assert.deepEqual(data.files, []);
 * ```
 */
export interface McpCallData {
  /** The server. */
  server?: string;
  /** The tool's name on the server. */
  tool?: string;
  /** The content blocks as the server sent them. */
  content: CallToolResult["content"];
  /** The server's structured result, when it sent one. */
  structuredContent?: Record<string, unknown>;
  /** Files written for binary content (audio, blob resources). */
  files: string[];
}

/**
 * Maps an MCP tool result to text, images and saved files. Text blocks are
 * joined; images ride along as images; audio and binary resources are saved
 * in the session's output folder and named in the text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcpResultToOutput } from "./adapter.ts";
 * import { Session } from "../session/session.ts";
 * await using session = new Session();
 * const out = await mcpResultToOutput({ content: [{ type: "text", text: "hi" }] }, {
 *   session,
 *   server: "s",
 * });
 * assert.equal(out.text, "hi");
 * ```
 */
export async function mcpResultToOutput(
  result: CallToolResult,
  options: { session: Session; server: string; signal?: AbortSignal },
): Promise<ToolOutput<McpCallData>> {
  const parts: string[] = [];
  const images: ImageContent[] = [];
  const files: string[] = [];
  const save = async (base64: string, hint: string, mimeType?: string) => {
    const path = await saveMcpBlob(options.session, options.server, hint, base64, mimeType, options.signal);
    files.push(path);
    return path;
  };
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
        images.push({ data: block.data, mediaType: block.mimeType });
        parts.push(`[image ${block.mimeType}, ${base64Bytes(block.data)} bytes, attached]`);
        break;
      case "audio": {
        const path = await save(block.data, "audio", block.mimeType);
        parts.push(`[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes, saved to "${path}"]`);
        break;
      }
      case "resource_link":
        parts.push(
          `[resource link "${block.name}": ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}${
            block.description ? `: ${block.description}` : ""
          }; read it with ReadMcpResource (server "${options.server}")]`,
        );
        break;
      case "resource": {
        const r = block.resource;
        if ("text" in r && typeof r.text === "string") {
          parts.push(`[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}`);
        } else if ("blob" in r && typeof r.blob === "string") {
          const path = await save(r.blob, r.uri, r.mimeType);
          parts.push(
            `[resource ${r.uri} (${r.mimeType ?? "binary"}, ${
              base64Bytes(r.blob)
            } bytes) saved to "${path}"]`,
          );
        }
        break;
      }
      default:
        parts.push(JSON.stringify(block));
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const text = parts.length ? parts.join("\n") : "(the tool returned no content)";
  return {
    text,
    ...(images.length ? { images } : {}),
    data: {
      content: result.content ?? [],
      ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
      files,
    },
  };
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
  "image/svg+xml": ".svg",
  "audio/wav": ".wav",
  "audio/x-wav": ".wav",
  "audio/mpeg": ".mp3",
  "audio/ogg": ".ogg",
  "application/pdf": ".pdf",
  "application/zip": ".zip",
  "application/gzip": ".gz",
  "application/json": ".json",
  "text/plain": ".txt",
};

/**
 * Saves base64 content in the session's output folder as
 * `mcp-<server>-<name>-<id><ext>` and returns the path.
 */
export async function saveMcpBlob(
  session: Session,
  server: string,
  hint: string,
  base64: string,
  mimeType?: string,
  signal?: AbortSignal,
): Promise<string> {
  const last = hint.split(/[/\\?#]/).filter(Boolean).pop() ?? "blob";
  const own = /\.[A-Za-z0-9]{1,8}$/.exec(last)?.[0];
  const ext = own ?? (mimeType ? EXTENSIONS[mimeType.split(";")[0].trim()] ?? "" : "");
  const stem = sanitizeMcpName(own ? last.slice(0, -own.length) : last).slice(0, 60) || "blob";
  const name = `mcp-${sanitizeMcpName(server).slice(0, 40)}-${stem}-${crypto.randomUUID().slice(0, 8)}${ext}`;
  const path = session.outputPath(name);
  await Deno.writeFile(path, decodeBase64(base64), { signal });
  return path;
}

function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64.replace(/\s+/g, ""));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function base64Bytes(b64: string): number {
  const clean = b64.replace(/\s+/g, "");
  return Math.floor(clean.length * 3 / 4) - (clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0);
}

/**
 * Zod schema → the compact JSON Schema that chat-completions endpoints accept,
 * and Zod issues → one readable validation message.
 *
 * @module
 */
import { z } from "zod";
import type { ZodType } from "./_zod_types.ts";

/**
 * A JSON Schema object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { type JsonSchema, toJsonSchema } from "./json_schema.ts";
 * const schema: JsonSchema = toJsonSchema(z.strictObject({ path: z.string() }));
 * assert.deepEqual(schema.required, ["path"]);
 * ```
 */
export type JsonSchema = Record<string, unknown>;

/**
 * Converts an input schema to a compact JSON Schema: no `$schema`, no
 * ±2^53 integer bounds, `additionalProperties: false` on strict objects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import type { ZodType } from "./_zod_types.ts";
 * import { toJsonSchema } from "./json_schema.ts";
 * const s = toJsonSchema(z.strictObject({ n: z.number().int().describe("A count") }));
 * assert.ok(!("$schema" in s) && (s.properties as any).n.type === "integer");
 * ```
 */
export function toJsonSchema(schema: ZodType): JsonSchema {
  const raw = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return compact(raw) as JsonSchema;
}

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k === "$schema") continue;
    if (
      (k === "minimum" || k === "exclusiveMinimum") && typeof v === "number" && v <= -Number.MAX_SAFE_INTEGER
    ) continue;
    if (
      (k === "maximum" || k === "exclusiveMaximum") && typeof v === "number" && v >= Number.MAX_SAFE_INTEGER
    ) continue;
    out[k] = compact(v);
  }
  return out;
}

/**
 * Formats every validation issue into one message for the model: missing and
 * unexpected parameters, wrong types (expected vs given), bad enum values.
 */
export function formatIssues(toolName: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join(".") : "";
    const at = path ? `"${path}"` : "the input";
    switch (issue.code) {
      case "invalid_type": {
        const given = describeValue((issue as { input?: unknown }).input);
        if (given === "undefined") return `missing required parameter ${at} (${issue.expected})`;
        return `${at} must be ${issue.expected}, got ${given}`;
      }
      case "unrecognized_keys":
        return issue.keys.map((k) => `unexpected parameter "${path ? `${path}.` : ""}${k}"`).join("; ");
      case "invalid_value":
        return `${at} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${
          JSON.stringify((issue as { input?: unknown }).input)
        }`;
      default:
        return `${at}: ${issue.message}`;
    }
  });
  return `Invalid input for ${toolName}: ${lines.join("; ")}`;
}

function describeValue(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "string") return `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === "object") return "object";
  return `${typeof v} ${String(v)}`;
}

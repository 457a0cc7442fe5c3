/**
 * The built-in tool set.
 *
 * @module
 */
import type { Tool } from "../registry/define_tool.ts";

/**
 * Options of the built-in tools, one field per tool family. Each field is
 * owned by that family's module.
 */
export interface BuiltinToolOptions {
  // BUILTIN-OPTIONS (one field per tool family; keep this marker)
}

/**
 * Every built-in tool, in the order the model sees them.
 *
 * @example
 * ```ts
 * import { builtinTools } from "./builtin.ts";
 * console.assert(Array.isArray(builtinTools()));
 * ```
 */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  void options;
  return [
    // BUILTIN-TOOLS (one line per tool; keep this marker)
  ];
}

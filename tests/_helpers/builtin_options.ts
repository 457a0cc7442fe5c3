/** Built-in tool options that turn on every optional built-in tool, for schema tests. */
import type { BuiltinToolOptions } from "../../src/tools/builtin.ts";

/** Options under which `builtinTools` returns every tool it can make. */
export function allBuiltinOptions(): BuiltinToolOptions {
  return {};
}

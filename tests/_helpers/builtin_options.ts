/** Built-in tool options that turn on every optional built-in tool, for schema tests. */
import type { BuiltinToolOptions } from "../../src/tools/mod.ts";
import { createModelClient } from "../../src/loop/client.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";

/** Options under which `builtinTools` returns every tool it can make. */
export function allBuiltinOptions(): BuiltinToolOptions {
  return {
    // the client is never called by schema tests
    agent: {
      client: createModelClient({ baseUrl: "http://127.0.0.1:9/v1" }),
      model: "m",
      registry: new ToolRegistry(),
    },
  };
}

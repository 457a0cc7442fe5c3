// Spawn overhead of the Bash tool (through the full runner) against raw Deno.Command("bash"),
// unsandboxed and inside bubblewrap. Run: deno bench -A bench/bash_bench.ts
import { fileURLToPath as fromFileUrl } from "node:url";
import { runTool } from "../src/tool/run_tool.ts";
import { ToolRegistry } from "../src/tool/registry.ts";
import { Session } from "../src/session/session.ts";
import { bubblewrapArgs } from "../src/sandbox/bubblewrap.ts";
import { createBashTool } from "../src/tools/bash/bash.ts";

// a fixed folder under the git-ignored cache: Deno.bench has no teardown to remove a temp folder
const dir = fromFileUrl(new URL("./.cache/bash_ws", import.meta.url));
Deno.mkdirSync(dir, { recursive: true });
const session = new Session({ roots: [dir], mode: "bypassPermissions" });
const plain = new ToolRegistry([createBashTool({ ledgerDir: false })]);
const boxed = new ToolRegistry([createBashTool({ ledgerDir: false, sandbox: true })]);
const hasBwrap = Deno.build.os === "linux" &&
  new Deno.Command("bash", { args: ["-c", "command -v bwrap"], stdout: "null" }).outputSync().success;

async function raw(program: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(program, { args, cwd: dir, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

async function tool(registry: ToolRegistry, command: string): Promise<void> {
  const r = await runTool(registry, { name: "Bash", input: { command } }, { session });
  if (!r.ok) throw new Error(r.text);
}

// async functions: Deno.bench awaits only functions declared async
Deno.bench(
  "raw Deno.Command bash -c true",
  { group: "spawn", baseline: true },
  async () => await raw("bash", ["-c", "true"]),
);
Deno.bench("Bash tool: true", { group: "spawn" }, async () => await tool(plain, "true"));
Deno.bench(
  "raw bwrap bash -c true",
  { group: "spawn", ignore: !hasBwrap },
  async () => await raw("bwrap", [...bubblewrapArgs({ writable: [dir], cwd: dir }), "bash", "-c", "true"]),
);
Deno.bench(
  "Bash tool sandboxed: true",
  { group: "spawn", ignore: !hasBwrap },
  async () => await tool(boxed, "true"),
);

Deno.bench(
  "raw Deno.Command bash: 1 MB of output",
  { group: "output", baseline: true },
  async () => await raw("bash", ["-c", "head -c 1000000 /dev/zero | tr '\\0' x"]),
);
Deno.bench(
  "Bash tool: 1 MB of output",
  { group: "output" },
  async () => await tool(plain, "head -c 1000000 /dev/zero | tr '\\0' x"),
);

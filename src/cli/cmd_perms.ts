/**
 * `paddock perms`: prints the minimal `deno run` line for the enabled tools,
 * and what each tool needs.
 *
 * @module
 */
import { fileURLToPath as fromFileUrl } from "node:url";
import { denoRunLine, neededPermissions, toDenoFlags } from "../permissions/deno_flags.ts";
import { type CliCommand, UsageError } from "./command.ts";
import { isCommandName, parseFlags, RUNTIME_FLAGS } from "./flags.ts";
import { startRuntime } from "./options.ts";

/** The `perms` subcommand. */
export const command: CliCommand = {
  async run(args, io) {
    const { values, positionals } = await parseFlags("perms", args);
    const dashdash = args.indexOf("--");
    if (dashdash < 0 && positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const tail = dashdash >= 0 ? args.slice(dashdash + 1) : ["tools"];
    // the command after -- shapes the need too: its --root, --tools, --base-url…
    const tailFlags: Record<string, unknown> = isCommandName(tail[0])
      ? (await parseFlags(tail[0], tail.slice(1), { strict: false })).values
      : {};
    const merged = { ...values, ...runtimeFlagsOf(tailFlags), quiet: true };
    const { runtime, config } = await startRuntime(merged, io, { checkGrants: false });
    try {
      const modelHost = values["model-host"] ??
        (["run", "chat"].includes(tail[0])
          ? hostOf(
            tailFlags["base-url"] ?? io.env.OPENAI_BASE_URL ?? config.settings.baseUrl ??
              "https://api.openai.com/v1",
          )
          : undefined);
      const policy = { ...runtime.policy(), modelHost };
      const entry = values.entry ?? defaultEntry();
      if (values.json) {
        const perTool = Object.fromEntries(
          runtime.registry.list().map((t) => [
            t.name,
            {
              sideEffect: t.sideEffect,
              flags: toDenoFlags({
                ...policy,
                tools: [t],
                env: [],
                outputDir: undefined,
                extraRead: undefined,
                modelHost: undefined,
              }).slice(1),
            },
          ]),
        );
        io.out(
          JSON.stringify(
            { flags: toDenoFlags(policy), line: denoRunLine(policy, entry, tail), perTool },
            null,
            2,
          ) + "\n",
        );
        return 0;
      }
      io.out(denoRunLine(policy, entry, tail) + "\n\n");
      for (const t of runtime.registry.list()) {
        const need = neededPermissions({
          ...policy,
          tools: [t],
          outputDir: undefined,
          modelHost: undefined,
          extraRead: undefined,
          env: [],
        });
        const parts = [
          need.read.length ? `read ${need.read.join(",")}` : "",
          need.write.length ? `write ${need.write.join(",")}` : "",
          need.run.length ? `run ${need.run.join(",")}` : "",
          need.net.length ? `net ${need.net.join(",")}` : "",
        ].filter(Boolean);
        io.out(`  ${t.name.padEnd(18)} ${t.sideEffect.padEnd(9)} ${parts.join("; ") || "nothing"}\n`);
      }
      io.out(
        policy.sandbox
          ? "\nEvery tool also writes its spilled output under the session output folder; Bash runs its commands in\nthe OS sandbox (bubblewrap on Linux), which reads and writes what is listed above to start.\n"
          : "\nEvery tool also writes its spilled output under the session output folder; Bash runs programs outside\nDeno's sandbox and the OS sandbox is off (--no-sandbox or the user setting): only Deno's checks apply.\n",
      );
      return 0;
    } finally {
      await runtime.close();
    }
  },
};

/** The runtime flags among a command's parsed values. */
function runtimeFlagsOf(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([k]) => Object.hasOwn(RUNTIME_FLAGS, k)));
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

function defaultEntry(): string {
  const url = new URL("../../cli.ts", import.meta.url);
  return url.protocol === "file:" ? fromFileUrl(url) : url.href;
}

/**
 * What `paddock run` and `paddock chat` share: the model configuration
 * check, and a runtime with the built-in tools, the terminal handlers and the
 * Agent tool wired to the configured endpoint. Their flags are in `flags.ts`.
 *
 * @module
 */
import { resolve } from "node:path";
import type { AgentOptions } from "../loop/agent_loop.ts";
import { loadAgentTypes } from "../loop/agent_types.ts";
import { askModel, createModelClient, type ModelClient } from "../loop/client.ts";
import { type ModelConfig, modelHost, resolveModelConfig, sessionModel } from "../loop/model_config.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { WebFetchSummarizeArgs } from "../web/options.ts";
import { terminalApprover } from "./approver.ts";
import { type CliIo, UsageError } from "./command.ts";
import type { AgentFlagValues } from "./flags.ts";
import { resolveConfig, startRuntime } from "./options.ts";
import { createRenderer, type Renderer } from "./render.ts";

/** A runtime ready for the loop. */
export interface AgentSetup {
  /** The runtime (tools, session, run options). */
  runtime: Runtime;
  /** The endpoint. */
  client: ModelClient;
  /** The configuration resolved at start. */
  model: ModelConfig;
  /** Renders events to the terminal or as JSON. */
  renderer: Renderer;
  /** Loop options every prompt shares (add prompt, history, signal). */
  loopOptions: Omit<AgentOptions, "prompt" | "history" | "signal">;
}

/**
 * Checks the model configuration and builds the runtime. Returns an exit
 * code (2) after printing what to set when no model is configured.
 */
export async function setupAgent(values: AgentFlagValues, io: CliIo): Promise<AgentSetup | number> {
  const maxTurns = positiveInt(values["max-turns"], "--max-turns");
  const maxTokens = positiveInt(values["max-tokens"], "--max-tokens");
  // on a terminal, an untrusted project's hooks and MCP servers are shown and asked about once
  if (io.isTerminal && stderrIsTerminal()) {
    const { askTrust } = await import("./cmd_trust.ts");
    try {
      await askTrust(resolve(io.cwd, values.root?.[0] ?? "."), io, { projectMcp: !values["mcp-config"] });
    } catch {
      // a malformed file: resolveConfig says so
    }
  }
  const resolved = resolveConfig(values, io);
  const found = resolveModelConfig(
    { model: values.model, baseUrl: values["base-url"] },
    io.env,
    resolved.settings,
  );
  if (!found.ok) {
    io.err(`paddock: ${found.message}\n`);
    return 2;
  }
  const config = found.config;
  let agentTypes;
  try {
    agentTypes = loadAgentTypes(resolved.runtime.roots![0]);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const client = createModelClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });
  const ref: { runtime?: Runtime } = {};
  const model = () => (ref.runtime ? sessionModel(ref.runtime.session, config.model) : config.model);
  const approver = terminalApprover(io);
  const agent = {
    client,
    model,
    registry: () => ref.runtime!.registry,
    runOptions: () => ref.runtime!.runOptions,
    agentTypes,
  };
  // WebFetch answers its prompt over a page with the configured model
  const web = {
    ...resolved.runtime.toolOptions?.web,
    summarize: (a: WebFetchSummarizeArgs) =>
      askModel(client, {
        model: model(),
        system:
          "Answer the question using only the web page given. Be concise; quote exact text where it matters.",
        user: `Page: ${a.url}\n\n${a.content}\n\nQuestion: ${a.prompt}`,
        signal: a.signal,
      }),
  };
  // tools never see the model key
  const { OPENAI_API_KEY: _key, ...env } = io.env;
  const started = await startRuntime(values, io, {
    config: resolved,
    approver,
    env,
    modelHost: modelHost(config.baseUrl),
    toolOptions: { web, agent },
  });
  const runtime = ref.runtime = started.runtime;
  return {
    runtime,
    client,
    model: config,
    renderer: createRenderer(io, { json: values.json, color: io.isTerminal && !io.env.NO_COLOR }),
    loopOptions: {
      client,
      model,
      registry: runtime.registry,
      runOptions: runtime.runOptions,
      maxTurns,
      maxTokens,
      stream: !values["no-stream"],
    },
  };
}

function stderrIsTerminal(): boolean {
  try {
    return Deno.stderr.isTerminal();
  } catch {
    return false;
  }
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`${flag} must be a whole number above 0, got "${value}"`);
  }
  return n;
}

/**
 * The agent loop and its model client: {@link runAgent} asks the model, runs
 * the tool calls it makes, sends the results back and repeats, streaming
 * {@link AgentEvent}s; {@link createModelClient} talks to any OpenAI-compatible
 * endpoint. Also here: retries, the model settings resolved from flags and
 * environment, and sub-agent types (`.paddock/agents/*.md`).
 *
 * @example Resolve the model settings from the environment
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveModelConfig } from "./mod.ts";
 * const found = resolveModelConfig({}, { OPENAI_API_KEY: "sk-test", PADDOCK_MODEL: "gpt-4o-mini" }, {});
 * assert.ok(found.ok);
 * assert.equal(found.config.baseUrl, "https://api.openai.com/v1");
 * ```
 *
 * @module
 */
export { DEFAULT_MAX_TURNS, defaultSystemPrompt, runAgent, runAgentToEnd } from "./agent_loop.ts";
export type { AgentOptions, AgentResult } from "./agent_loop.ts";
export { askModel, createModelClient, OPENAI_BASE_URL, requestTurn } from "./client.ts";
export type {
  ChatMessage,
  ModelClient,
  ModelClientOptions,
  TurnRequest,
  TurnResponse,
  WireToolCall,
} from "./client.ts";
export { addUsage, emptyUsage } from "./events.ts";
export type { AgentEvent, StopReason, Usage } from "./events.ts";
export { describeModelError, withRetry } from "./retry.ts";
export type { EndpointInfo, RetryOptions } from "./retry.ts";
export { modelHost, resolveModelConfig, sessionModel } from "./model_config.ts";
export type { ModelConfig, ModelConfigResult, ModelFlags } from "./model_config.ts";
export { AGENT_TYPES_DIR, GENERAL_PURPOSE, loadAgentTypes, parseAgentType } from "./agent_types.ts";
export type { AgentType } from "./agent_types.ts";

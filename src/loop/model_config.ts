/**
 * Which model, endpoint and key the loop uses: flags, then env
 * (`PADDOCK_MODEL`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`), then the settings
 * file; and, during a session, the `model` the Config tool set.
 *
 * @module
 */
import type { Session } from "../session/session.ts";
import type { Settings } from "../session/settings.ts";
import { sessionConfig } from "../session/config.ts";
import { OPENAI_BASE_URL } from "./client.ts";

/**
 * A resolved endpoint configuration.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient } from "./client.ts";
 * import { type ModelConfig, resolveModelConfig } from "./model_config.ts";
 * const found = resolveModelConfig({ model: "qwen3", baseUrl: "http://127.0.0.1:11434/v1" }, {}, {});
 * assert.ok(found.ok);
 * const config: ModelConfig = found.config;
 * assert.equal(createModelClient(config).baseUrl, "http://127.0.0.1:11434/v1");
 * ```
 */
export interface ModelConfig {
  /** Model name. */
  model: string;
  /** Base URL of the chat-completions endpoint. */
  baseUrl: string;
  /** API key (absent for local servers that need none). */
  apiKey?: string;
}

/**
 * Flag values that override env and settings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ModelFlags, resolveModelConfig } from "./model_config.ts";
 * const flags: ModelFlags = { model: "from-flag" };
 * const found = resolveModelConfig(flags, { PADDOCK_MODEL: "from-env", OPENAI_API_KEY: "sk-test" }, {});
 * assert.ok(found.ok && found.config.model === "from-flag");
 * ```
 */
export interface ModelFlags {
  /** --model */
  model?: string;
  /** --base-url */
  baseUrl?: string;
}

/**
 * The outcome of {@link resolveModelConfig}: a config, or what is missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ModelConfigResult, resolveModelConfig } from "./model_config.ts";
 * const result: ModelConfigResult = resolveModelConfig({}, {}, {});
 * if (!result.ok) assert.deepEqual(result.missing, ["model", "endpoint"]);
 * assert.ok(!result.ok);
 * ```
 */
export type ModelConfigResult =
  | { ok: true; config: ModelConfig }
  | { ok: false; missing: string[]; message: string };

/**
 * Resolves the model configuration. A model name is required, and either a
 * base URL or an API key (which means api.openai.com).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveModelConfig } from "./model_config.ts";
 * const r = resolveModelConfig(
 *   {},
 *   { PADDOCK_MODEL: "qwen3", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" },
 *   {},
 * );
 * assert.ok(r.ok && r.config.model === "qwen3");
 * const none = resolveModelConfig({}, {}, {});
 * assert.ok(!none.ok && none.message.includes("PADDOCK_MODEL"));
 * ```
 */
export function resolveModelConfig(
  flags: ModelFlags,
  env: Readonly<Record<string, string>>,
  settings: Settings,
): ModelConfigResult {
  const model = flags.model || env.PADDOCK_MODEL || settings.model;
  const apiKey = env.OPENAI_API_KEY || undefined;
  const baseUrl = flags.baseUrl || env.OPENAI_BASE_URL || settings.baseUrl ||
    (apiKey ? OPENAI_BASE_URL : undefined);
  const missing: string[] = [];
  if (!model) missing.push("model");
  if (!baseUrl) missing.push("endpoint");
  if (missing.length === 0) {
    try {
      new URL(baseUrl!);
    } catch {
      return {
        ok: false,
        missing: ["endpoint"],
        message:
          `The base URL "${baseUrl}" is not a valid URL: set OPENAI_BASE_URL (or --base-url) to e.g. http://127.0.0.1:11434/v1`,
      };
    }
    return { ok: true, config: { model: model!, baseUrl: baseUrl!, ...(apiKey ? { apiKey } : {}) } };
  }
  const parts: string[] = [];
  if (!model) parts.push(`a model: --model, PADDOCK_MODEL, or "model" in .paddock/settings.json`);
  if (!baseUrl) {
    parts.push(
      `an endpoint: --base-url or OPENAI_BASE_URL for any OpenAI-compatible server (e.g. http://127.0.0.1:11434/v1), or OPENAI_API_KEY for api.openai.com`,
    );
  }
  return {
    ok: false,
    missing,
    message: `No model is configured. Set ${parts.join("; and ")}`,
  };
}

/**
 * The `host:port` Deno's `--allow-net` needs for a base URL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelHost } from "./model_config.ts";
 * assert.equal(modelHost("http://127.0.0.1:11434/v1"), "127.0.0.1:11434");
 * assert.equal(modelHost("https://api.openai.com/v1"), "api.openai.com");
 * ```
 */
export function modelHost(baseUrl: string): string {
  return new URL(baseUrl).host;
}

/**
 * The model to use now: the one Config set in this session, else `fallback`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { sessionConfig } from "../session/config.ts";
 * import { sessionModel } from "./model_config.ts";
 * const s = new Session({ roots: ["/tmp"] });
 * assert.equal(sessionModel(s, "a"), "a");
 * sessionConfig(s).model = "b";
 * assert.equal(sessionModel(s, "a"), "b");
 * ```
 */
export function sessionModel(session: Session, fallback: string): string {
  const value = sessionConfig(session).model;
  return typeof value === "string" && value.trim() !== "" ? value : fallback;
}

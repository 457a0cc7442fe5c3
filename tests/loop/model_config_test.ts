import assert from "node:assert/strict";
import { APIError } from "openai";
import { OPENAI_BASE_URL } from "../../src/loop/client.ts";
import { modelHost, resolveModelConfig } from "../../src/loop/model_config.ts";
import { retryAfterMs, retryDelay } from "../../src/loop/retry.ts";

Deno.test("model configuration: flags beat env, env beats the settings file", () => {
  const settings = { model: "file-model", baseUrl: "http://file:1/v1" };
  const env = { PADDOCK_MODEL: "env-model", OPENAI_BASE_URL: "http://env:2/v1" };
  const fromFlags = resolveModelConfig({ model: "flag-model", baseUrl: "http://flag:3/v1" }, env, settings);
  assert.deepEqual(fromFlags, { ok: true, config: { model: "flag-model", baseUrl: "http://flag:3/v1" } });
  const fromEnv = resolveModelConfig({}, env, settings);
  assert.ok(
    fromEnv.ok && fromEnv.config.model === "env-model" && fromEnv.config.baseUrl === "http://env:2/v1",
  );
  const fromFile = resolveModelConfig({}, {}, settings);
  assert.ok(
    fromFile.ok && fromFile.config.model === "file-model" && fromFile.config.baseUrl === "http://file:1/v1",
  );
});

Deno.test("model configuration: an API key alone means api.openai.com; nothing names what to set", () => {
  const keyOnly = resolveModelConfig({}, { OPENAI_API_KEY: "sk-1", PADDOCK_MODEL: "gpt" }, {});
  assert.deepEqual(keyOnly, { ok: true, config: { model: "gpt", baseUrl: OPENAI_BASE_URL, apiKey: "sk-1" } });
  const noModel = resolveModelConfig({}, { OPENAI_API_KEY: "sk-1" }, {});
  assert.ok(!noModel.ok);
  assert.deepEqual(noModel.missing, ["model"]);
  assert.match(noModel.message, /--model, PADDOCK_MODEL/);
  assert.doesNotMatch(noModel.message, /OPENAI_BASE_URL/);
  const bad = resolveModelConfig({ baseUrl: "not a url" }, { PADDOCK_MODEL: "m" }, {});
  assert.ok(!bad.ok && /"not a url" is not a valid URL/.test(bad.message));
  assert.equal(modelHost("http://127.0.0.1:8080/v1"), "127.0.0.1:8080");
  assert.equal(modelHost("https://api.openai.com/v1"), "api.openai.com");
});

Deno.test("retry delays honour retry-after-ms, retry-after seconds and dates, and skip client errors", () => {
  const err = (status: number, headers: Record<string, string> = {}) =>
    APIError.generate(status, { message: "x" }, "x", new Headers(headers));
  assert.equal(retryDelay(err(429, { "retry-after-ms": "250" }), 1), 250);
  assert.equal(retryDelay(err(503, { "retry-after": "3" }), 1), 3000);
  assert.equal(retryDelay(err(429, { "retry-after": "3600" }), 1), 60_000, "a huge hint is capped");
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now), 5000);
  assert.equal(retryDelay(err(400), 1), undefined);
  assert.equal(retryDelay(err(401), 1), undefined);
  assert.equal(retryDelay(err(404), 1), undefined);
  const backoff = retryDelay(err(500), 3, { baseDelayMs: 100 })!;
  assert.ok(backoff >= 300 && backoff <= 400, String(backoff));
});

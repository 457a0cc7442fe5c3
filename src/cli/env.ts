/**
 * The environment variables the CLI reads. Listed so `--allow-env` can name
 * them and so the CLI works with only those granted.
 *
 * @module
 */

/** Variables the CLI and the built-in tools read. */
export const ENV_NAMES: readonly string[] = [
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "PADDOCK_MODEL",
  "PADDOCK_PERMISSION_MODE",
  "BRAVE_API_KEY",
  "SEARXNG_URL",
  "PADDOCK_SEARCH_PROVIDER",
  "BRAVE_SEARCH_API_KEY",
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_RUNTIME_DIR",
  "PATH",
  "TMPDIR",
  "TERM",
  "NO_COLOR",
];

/** Reads the listed variables one by one, skipping any not granted. */
export function readEnv(names: readonly string[] = ENV_NAMES): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    try {
      const v = Deno.env.get(name);
      if (v !== undefined) env[name] = v;
    } catch {
      // not granted: the CLI works without it
    }
  }
  return env;
}

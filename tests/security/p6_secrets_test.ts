/**
 * THREATS.md P6: secrets stay out. Every child Paddock starts (Bash sandboxed
 * or not, command hooks, MCP stdio servers) gets an allowlisted environment
 * that never holds Paddock's own model and search keys, and the user's
 * credential stores read as empty inside the sandbox.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { McpConnection } from "../../src/mcp/client.ts";
import { commandHooks } from "../../src/runtime/command_hooks.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { sandboxEnv } from "../../src/sandbox/env.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";
import { exists, HAS_BWRAP, IS_ROOT, listing, sandboxed, tempDir } from "./_sandboxed.ts";

/** A fake home outside /tmp (the sandbox's /tmp is its own), so it is visible, read-only, inside. */
async function fakeHome(): Promise<{ path: string } & AsyncDisposable> {
  const base = join(Deno.env.get("HOME") ?? "/root", ".cache");
  Deno.mkdirSync(base, { recursive: true });
  return await tempDir("paddock-test-home-", base);
}

const STORES: Record<string, string> = {
  ".ssh/id_ed25519": "PRIVATE KEY",
  ".aws/credentials": "aws_secret_access_key = s",
  ".gnupg/private-keys-v1.d/k.key": "gpg",
  ".netrc": "machine h password p",
  ".config/gcloud/credentials.db": "g",
  ".docker/config.json": '{"auths":{}}',
  ".kube/config": "token: t",
  ".npmrc": "//registry.npmjs.org/:_authToken=t",
  ".git-credentials": "https://u:p@example.com",
  ".config/paddock/settings.json": '{"apiKey":"k"}',
};

Deno.test({
  name: "P6 credential stores: every default store in the home folder reads as empty inside the sandbox",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using home = await fakeHome();
    await using ws = await tempDir();
    const secret = crypto.randomUUID();
    for (const rel of Object.keys(STORES)) {
      Deno.mkdirSync(join(home.path, rel, ".."), { recursive: true });
      Deno.writeTextFileSync(join(home.path, rel), `${STORES[rel]} ${secret}\n`);
    }
    Deno.writeTextFileSync(join(home.path, "notes.txt"), "visible\n");
    const r = await sandboxed(
      `${
        Object.keys(STORES).map((rel) => `cat ~/${rel} 2>/dev/null`).join("; ")
      }; ls -A ~/.ssh ~/.aws; cat ~/notes.txt`,
      { writable: [ws.path], home: home.path },
    );
    assert.ok(!r.out.includes(secret), r.out);
    assert.match(r.out, /visible/, "the rest of the home folder stays readable");
  },
});

Deno.test({
  name: "P6 hidden paths are configurable: extraHiddenPaths adds to the list, hiddenPaths replaces it",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using home = await fakeHome();
    await using ws = await tempDir();
    Deno.writeTextFileSync(join(home.path, ".token"), "T1\n");
    Deno.mkdirSync(join(home.path, ".ssh"));
    Deno.writeTextFileSync(join(home.path, ".ssh/key"), "K1\n");
    const script = "cat ~/.token ~/.ssh/key 2>/dev/null; true";
    const extra = await sandboxed(script, {
      writable: [ws.path],
      home: home.path,
      settings: { extraHiddenPaths: [".token"] },
    });
    assert.equal(extra.out, "");
    const replaced = await sandboxed(script, {
      writable: [ws.path],
      home: home.path,
      settings: { hiddenPaths: [".token"] },
    });
    assert.equal(replaced.out, "K1\n", "the user chose to show ~/.ssh");
  },
});

Deno.test({
  name: "P6 root-only files: /etc/shadow reads as empty, also when the sandbox runs as root",
  ignore: !HAS_BWRAP || !IS_ROOT || !exists("/etc/shadow"),
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed("wc -c < /etc/shadow", { writable: [ws.path] });
    assert.equal(r.out.trim(), "0");
  },
});

Deno.test({
  name: "P6 planting credentials: a store missing from a writable home folder cannot be created",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const home = join(ws.path, "home");
    Deno.mkdirSync(home);
    const r = await sandboxed(
      "mkdir -p ~/.ssh && echo key >> ~/.ssh/authorized_keys && echo PLANTED; echo x > ~/.netrc && echo PLANTED; true",
      { writable: [ws.path], home },
    );
    assert.doesNotMatch(r.out, /PLANTED/);
    assert.deepEqual(listing(home), [], "nothing planted, no placeholder left");
  },
});

Deno.test({
  name: "P6 environment: the command sees only allowlisted variables, never the model or search keys",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const parent = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: "/nonexistent",
      LC_ALL: "C",
      OPENAI_API_KEY: "sk-secret-1",
      BRAVE_API_KEY: "secret-2",
      AWS_SECRET_ACCESS_KEY: "secret-3",
      GITHUB_TOKEN: "secret-4",
    };
    const r = await sandboxed("env", { writable: [ws.path], env: parent });
    assert.doesNotMatch(r.out, /secret/);
    assert.match(r.out, /^LC_ALL=C$/m);
    assert.deepEqual(Object.keys(sandboxEnv(parent)).sort(), ["HOME", "LC_ALL", "PATH"]);
    assert.deepEqual(
      sandboxEnv(parent, ["GITHUB_TOKEN"]).GITHUB_TOKEN,
      "secret-4",
      "only when the user passes it",
    );
  },
});

Deno.test({
  name: "P6 nested hidden paths: hiding a folder inside a hidden folder reveals nothing of it",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const home = join(ws.path, "home"); // writable: the case where folders on the way get pinned
    Deno.mkdirSync(join(home, ".aws/sso/cache"), { recursive: true });
    Deno.writeTextFileSync(join(home, ".aws/sso/cache/token.json"), "SSO-TOKEN\n");
    const r = await sandboxed("cat ~/.aws/sso/cache/token.json 2>/dev/null; ls -A ~/.aws; true", {
      writable: [ws.path],
      home,
      settings: { extraHiddenPaths: [".aws/sso/cache"] },
    });
    assert.doesNotMatch(r.out, /SSO-TOKEN|sso/);
  },
});

/** A runtime environment holding Paddock's keys, other credentials, and a variable the user passes on. */
function secretEnv(): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: "/tmp",
    LANG: "C.UTF-8",
    OPENAI_API_KEY: "sk-secret-openai",
    BRAVE_API_KEY: "secret-brave",
    BRAVE_SEARCH_API_KEY: "secret-brave-search",
    SEARXNG_URL: "http://user:secret-searx@127.0.0.1:1",
    PADDOCK_SEARCH_API_KEY: "secret-paddock",
    AWS_SECRET_ACCESS_KEY: "secret-aws",
    GITHUB_TOKEN: "secret-github",
    MY_VAR: "passed-on",
  };
}
/** What the user names with --pass-env: their own variable, and a Paddock key that must still stay out. */
const PASS_ENV = ["MY_VAR", "OPENAI_API_KEY", "BRAVE_API_KEY", "SEARXNG_URL"];

function assertClean(envText: string, where: string): void {
  assert.doesNotMatch(envText, /secret/, `${where} saw a secret:\n${envText}`);
  assert.match(envText, /^MY_VAR=passed-on$/m, `${where} lacks the passed variable:\n${envText}`);
  assert.match(envText, /^LANG=C\.UTF-8$/m, `${where} lacks the locale:\n${envText}`);
}

for (const sandbox of [false, true]) {
  Deno.test({
    name: `P6 environment in Bash (${
      sandbox ? "sandboxed" : "unsandboxed"
    }): only the allowlist and passEnv, never a key`,
    ignore: sandbox && !HAS_BWRAP,
    fn: async () => {
      await using ws = await tempWorkspace();
      await using rt = createRuntime({
        roots: [ws.dir],
        outputDir: ws.session.outputDir(),
        mode: "bypassPermissions",
        env: secretEnv(),
        passEnv: PASS_ENV,
        sandbox,
        excludeTools: ["Agent"],
      });
      const fg = await rt.run("Bash", { command: "env" });
      assert.ok(fg.ok, fg.text);
      assertClean(fg.text, "a foreground command");
      const bg = await rt.run("Bash", { command: "env", run_in_background: true });
      const out = await rt.run("TaskOutput", { task_id: (bg.data as { taskId: string }).taskId });
      assertClean(out.text, "a background task");
    },
  });
}

Deno.test("P6 environment in command hooks: only the allowlist and passEnv, also from the process environment", async () => {
  await using ws = await tempWorkspace();
  const file = ws.path("hook-env.txt");
  const hook = { command: `env > '${file}'` };
  const event = { tool: "Bash", input: {}, callId: "c1", session: ws.session };
  const given = commandHooks({ PreToolUse: [hook] }, { env: secretEnv(), passEnv: PASS_ENV });
  await given.preToolUse![0](event);
  assertClean(Deno.readTextFileSync(file), "a PreToolUse hook");
  // without an environment given, the process's own is filtered the same way
  Deno.env.set("OPENAI_API_KEY", "sk-secret-process");
  try {
    await commandHooks({ PreToolUse: [hook] }).preToolUse![0](event);
    assert.doesNotMatch(Deno.readTextFileSync(file), /secret/);
  } finally {
    Deno.env.delete("OPENAI_API_KEY");
  }
});

Deno.test("P6 environment in MCP stdio servers: the allowlist, passEnv and the config's own env, never a key", async () => {
  await using ws = await tempWorkspace();
  const file = ws.path("server-env.txt");
  const connection = new McpConnection("dump", {
    type: "stdio",
    command: "bash",
    args: ["-c", `env > '${file}'`],
    env: { FROM_CONFIG: "config-value" },
  }, {
    registry: new ToolRegistry(),
    env: secretEnv(),
    passEnv: PASS_ENV,
    startTimeoutMs: 10_000,
    reconnect: { maxAttempts: 0 },
  });
  // the "server" only writes its environment and exits: the start fails, the file tells
  await connection.start().catch(() => {});
  await connection.close();
  const text = Deno.readTextFileSync(file);
  assertClean(text, "an MCP stdio server");
  assert.match(text, /^FROM_CONFIG=config-value$/m, "the config's own env is added on top");
});

Deno.test("P6 sandboxEnv holds back Paddock's keys even when the user names them", () => {
  const env = sandboxEnv(secretEnv(), [
    ...PASS_ENV,
    "PADDOCK_SEARCH_API_KEY",
    "BRAVE_SEARCH_API_KEY",
    "GITHUB_TOKEN",
  ]);
  assert.deepEqual(Object.keys(env).sort(), ["GITHUB_TOKEN", "HOME", "LANG", "MY_VAR", "PATH"]);
});

Deno.test({
  name:
    "P6 Paddock's own user folder: where XDG_CONFIG_HOME moves it, it reads as empty inside the sandbox too",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using home = await fakeHome();
    await using cfg = await fakeHome();
    await using ws = await tempDir();
    Deno.mkdirSync(join(cfg.path, "paddock"));
    Deno.writeTextFileSync(join(cfg.path, "paddock/trusted.json"), '{"projects":{}}\n');
    Deno.writeTextFileSync(join(cfg.path, "paddock/settings.json"), '{"apiKey":"k"}\n');
    const before = Deno.env.get("XDG_CONFIG_HOME");
    Deno.env.set("XDG_CONFIG_HOME", cfg.path);
    try {
      const r = await sandboxed(
        `cat ${cfg.path}/paddock/trusted.json ${cfg.path}/paddock/settings.json 2>&1; true`,
        {
          writable: [ws.path],
          home: home.path,
        },
      );
      assert.doesNotMatch(r.out, /projects|apiKey/);
    } finally {
      if (before === undefined) Deno.env.delete("XDG_CONFIG_HOME");
      else Deno.env.set("XDG_CONFIG_HOME", before);
    }
  },
});

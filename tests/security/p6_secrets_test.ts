/**
 * THREATS.md P6: secrets stay out. The sandboxed command gets an allowlisted
 * environment, and the user's credential stores read as empty inside.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sandboxEnv } from "../../src/sandbox/env.ts";
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

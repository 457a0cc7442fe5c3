import assert from "node:assert/strict";
import { runTool, Session, ToolRegistry } from "../../mod.ts";
import {
  currentWorktree,
  type EnterWorktreeResult,
  enterWorktreeTool,
} from "../../src/tools/enter_worktree.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const reg = () => new ToolRegistry([enterWorktreeTool]);
const approver = () => Promise.resolve(true);

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: [
      "-c",
      "user.name=Test",
      "-c",
      "user.email=test@example.com",
      "-c",
      "init.defaultBranch=main",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

async function repo(dir: string): Promise<void> {
  await git(dir, "init", "-q");
  await Deno.writeTextFile(`${dir}/README.md`, "hello\n");
  await git(dir, "add", "README.md");
  await git(dir, "commit", "-q", "-m", "first");
}

Deno.test("EnterWorktree makes a git worktree on its own branch and moves the session there", async () => {
  await using ws = await tempWorkspace();
  await repo(ws.dir);
  const r = await runTool(reg(), { name: "EnterWorktree", input: { name: "fix-1" } }, {
    session: ws.session,
    approver,
  });
  assert.equal(r.ok, true, r.text);
  const data = r.data as EnterWorktreeResult;
  assert.equal(data.path, ws.path(".paddock", "worktrees", "fix-1"));
  assert.equal(data.branch, "worktree-fix-1");
  assert.equal(ws.session.cwd, data.path);
  assert.equal(await Deno.readTextFile(`${data.path}/README.md`), "hello\n");
  assert.equal(await git(data.path, "rev-parse", "--abbrev-ref", "HEAD"), "worktree-fix-1");
  assert.match(await git(ws.dir, "worktree", "list"), /\.paddock\/worktrees\/fix-1 /);
  assert.equal(await git(ws.dir, "status", "--porcelain"), "", "the user's checkout stays clean");
  assert.equal(currentWorktree(ws.session)?.previousCwd, ws.dir);

  const second = await runTool(reg(), { name: "EnterWorktree", input: {} }, {
    session: ws.session,
    approver,
  });
  assert.equal(second.error?.code, "conflict");
  assert.match(second.text, /already in worktree "fix-1"/);
});

Deno.test("EnterWorktree generates a name when none is given", async () => {
  await using ws = await tempWorkspace();
  await repo(ws.dir);
  const r = await runTool(reg(), { name: "EnterWorktree", input: {} }, { session: ws.session, approver });
  assert.equal(r.ok, true, r.text);
  const data = r.data as EnterWorktreeResult;
  assert.match(data.name, /^wt-[0-9a-f]{8}$/);
  assert.equal(data.branch, `worktree-${data.name}`);
  assert.equal(ws.session.cwd, data.path);
});

Deno.test("EnterWorktree refuses outside a repository, with no commits, or with a bad name", async () => {
  await using ws = await tempWorkspace();
  const plain = await runTool(reg(), { name: "EnterWorktree", input: { name: "a" } }, {
    session: ws.session,
    approver,
  });
  assert.equal(plain.ok, false);
  assert.match(plain.text, /is not inside a git repository/);

  await git(ws.dir, "init", "-q");
  const empty = await runTool(reg(), { name: "EnterWorktree", input: { name: "a" } }, {
    session: ws.session,
    approver,
  });
  assert.match(empty.text, /has no commits yet/);

  for (const name of ["../up", "-x", "a..b", "x.lock", "a/b", ""]) {
    const bad = await runTool(reg(), { name: "EnterWorktree", input: { name } }, {
      session: ws.session,
      approver,
    });
    assert.equal(bad.error?.code, "invalid_input", name);
  }
  assert.equal(ws.session.cwd, ws.dir);
});

Deno.test("EnterWorktree refuses a repository whose top folder is outside the session roots", async () => {
  await using ws = await tempWorkspace();
  await repo(ws.dir);
  await Deno.mkdir(ws.path("sub"));
  await using session = new Session({ roots: [ws.path("sub")], outputDir: ws.path("out") });
  const r = await runTool(reg(), { name: "EnterWorktree", input: { name: "x" } }, { session, approver });
  assert.equal(r.error?.code, "permission_denied");
  assert.match(r.text, /is outside the workspace roots/);
  await assert.rejects(Deno.stat(ws.path(".paddock", "worktrees", "x")), Deno.errors.NotFound);
});

Deno.test("EnterWorktree will not follow a .paddock symlink out of the workspace", async () => {
  await using ws = await tempWorkspace();
  await using outside = await tempWorkspace("paddock-outside-");
  await repo(ws.dir);
  await Deno.symlink(outside.dir, ws.path(".paddock"));
  const r = await runTool(reg(), { name: "EnterWorktree", input: { name: "esc" } }, {
    session: ws.session,
    approver,
  });
  assert.equal(r.error?.code, "permission_denied");
  assert.match(r.text, /outside the workspace/);
  assert.deepEqual([...Deno.readDirSync(outside.dir)], [], "nothing was written outside");
  assert.equal(ws.session.cwd, ws.dir);
});

Deno.test("EnterWorktree cannot run in plan mode", async () => {
  await using ws = await tempWorkspace();
  await repo(ws.dir);
  ws.session.setMode("plan");
  const r = await runTool(reg(), { name: "EnterWorktree", input: { name: "p" } }, {
    session: ws.session,
    approver,
  });
  assert.equal(r.error?.code, "permission_denied");
  assert.equal(ws.session.cwd, ws.dir);
});

Deno.test("EnterWorktree declares git for the Deno flags", () => {
  assert.deepEqual(enterWorktreeTool.programs, ["git"]);
  assert.equal(enterWorktreeTool.sideEffect, "Mutating");
});

Deno.test("EnterWorktree runs none of a prepared repository's hooks, fsmonitor or filter programs (P3)", async () => {
  await using ws = await tempWorkspace();
  await repo(ws.dir);
  const marker = (what: string) => ws.path(`marker-${what}`);
  const script = async (what: string) => {
    const file = ws.path(`.git/${what}.sh`);
    await Deno.writeTextFile(file, `#!/bin/sh\ntouch "${marker(what)}"\ncat\n`);
    await Deno.chmod(file, 0o755);
    return file;
  };
  // every class of repository config that makes git run a program during checkout
  for (const hook of ["post-checkout", "reference-transaction", "post-index-change"]) {
    const file = ws.path(`.git/hooks/${hook}`);
    await Deno.writeTextFile(file, `#!/bin/sh\ntouch "${marker(hook)}"\n`);
    await Deno.chmod(file, 0o755);
  }
  await Deno.writeTextFile(ws.path(".gitattributes"), "*.txt filter=evil\n");
  await Deno.writeTextFile(ws.path("a.txt"), "text\n");
  await git(ws.dir, "-c", "core.hooksPath=/dev/null", "add", ".gitattributes", "a.txt");
  await git(ws.dir, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "attrs");
  await git(ws.dir, "config", "core.fsmonitor", await script("fsmonitor"));
  await git(ws.dir, "config", "filter.evil.smudge", await script("smudge"));
  await git(ws.dir, "config", "filter.evil.required", "true");
  for await (const e of Deno.readDir(ws.dir)) {
    if (e.name.startsWith("marker-")) await Deno.remove(ws.path(e.name));
  }
  const r = await runTool(reg(), { name: "EnterWorktree", input: { name: "safe" } }, {
    session: ws.session,
    approver,
  });
  assert.equal(r.ok, true, r.text);
  const data = r.data as EnterWorktreeResult;
  assert.equal(await Deno.readTextFile(`${data.path}/a.txt`), "text\n");
  const planted = [];
  for await (const e of Deno.readDir(ws.dir)) if (e.name.startsWith("marker-")) planted.push(e.name);
  assert.deepEqual(planted, [], "no repository program ran");
});

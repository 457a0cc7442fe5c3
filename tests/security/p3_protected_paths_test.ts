/**
 * THREATS.md P3: nothing written inside a run executes outside it. Protected
 * paths stay read-only inside the sandbox, also when missing, and the host
 * keeps no trace of how that was done.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { UnavailableError } from "../../src/errors.ts";
import { planMounts } from "../../src/sandbox/protect.ts";
import { sandboxCommand } from "../../src/sandbox/sandbox.ts";
import { exists, git, HAS_BWRAP, listing, sandboxed, tempDir } from "./_sandboxed.ts";

const PLANTS = [
  "mkdir -p .paddock; echo '{\"hooks\":{}}' > .paddock/settings.json",
  "mkdir -p .paddock/hooks; echo x > .paddock/hooks/h.sh",
  "echo '{\"mcpServers\":{}}' > .mcp.json",
  "mkdir -p .git/hooks; echo x > .git/hooks/post-checkout",
  "echo '[submodule \"x\"]' > .gitmodules",
  "mkdir -p .claude; echo '{}' > .claude/settings.json",
  "mkdir -p .vscode; echo '{}' > .vscode/tasks.json",
  "mkdir -p .idea; echo x > .idea/workspace.xml",
  "ln -s /etc .vscode",
  "mkfifo .mcp.json",
];

Deno.test({
  name: "P3 planting: missing protected paths cannot be created, and the host keeps nothing",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    Deno.writeTextFileSync(join(ws.path, "README"), "hi\n");
    const r = await sandboxed(
      `${PLANTS.map((p) => `(${p}) 2>/dev/null && echo "PLANTED ${p}"`).join("; ")}; ls -A`,
      {
        writable: [ws.path],
      },
    );
    assert.doesNotMatch(r.out, /PLANTED/);
    assert.deepEqual(listing(ws.path), ["README"], "no placeholder and no planted file left behind");
  },
});

Deno.test({
  name:
    "P3 editing: existing protected paths are read-only (git hooks and config, .mcp.json, editor folders)",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    git(ws.path, "init", "-q");
    const files = { ".mcp.json": "{}\n", ".vscode/settings.json": "{}\n", ".bashrc": "# mine\n" };
    for (const [rel, text] of Object.entries(files)) {
      Deno.mkdirSync(join(ws.path, rel, ".."), { recursive: true });
      Deno.writeTextFileSync(join(ws.path, rel), text);
    }
    const config = Deno.readTextFileSync(join(ws.path, ".git/config"));
    const r = await sandboxed(
      [
        "echo x > .git/hooks/pre-commit",
        "echo '[core] fsmonitor = x' >> .git/config",
        "git config core.hooksPath /tmp",
        "echo x >> .mcp.json",
        "echo x > .vscode/settings.json",
        "echo x > .vscode/tasks.json",
        "echo x >> .bashrc",
        "rm -f .mcp.json .bashrc",
      ].map((c) => `(${c}) 2>/dev/null && echo "CHANGED ${c}"`).join("; "),
      { writable: [ws.path] },
    );
    assert.doesNotMatch(r.out, /CHANGED/);
    assert.equal(Deno.readTextFileSync(join(ws.path, ".git/config")), config);
    assert.ok(!exists(join(ws.path, ".git/hooks/pre-commit")));
    for (const [rel, text] of Object.entries(files)) {
      assert.equal(Deno.readTextFileSync(join(ws.path, rel)), text);
    }
    assert.ok(!exists(join(ws.path, ".vscode/tasks.json")));
  },
});

Deno.test({
  name:
    "P3 replacing an ancestor: .git, .vscode and .paddock cannot be renamed, removed or swapped for a new one",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    git(ws.path, "init", "-q");
    Deno.mkdirSync(join(ws.path, ".vscode"));
    Deno.mkdirSync(join(ws.path, ".paddock"));
    const gitBefore = listing(join(ws.path, ".git"));
    const r = await sandboxed(
      [
        "mv .git .git-old && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
        "rm -rf .vscode && mkdir .vscode && echo x > .vscode/tasks.json",
        "mv .paddock p && mkdir .paddock",
        "mv .git/hooks .git/h && mkdir .git/hooks",
      ].map((c) => `(${c}) 2>/dev/null && echo "SWAPPED ${c}"`).join("; "),
      { writable: [ws.path] },
    );
    assert.doesNotMatch(r.out, /SWAPPED/);
    assert.deepEqual(listing(ws.path), [".git", ".paddock", ".vscode"]);
    assert.deepEqual(listing(join(ws.path, ".git")), gitBefore);
  },
});

Deno.test({
  name: "P3 redirecting git: .git/commondir and config.worktree cannot point git at planted config",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    git(ws.path, "init", "-q");
    git(ws.path, "config", "extensions.worktreeConfig", "true");
    git(ws.path, "init", "-q", "--bare", "evil");
    const before = listing(join(ws.path, ".git"));
    const r = await sandboxed(
      [
        "git -C evil config core.fsmonitor 'touch PWNED; false'",
        `echo "$PWD/evil" > .git/commondir`,
        "echo '[core] fsmonitor = touch PWNED' > .git/config.worktree",
      ].map((c) => `(${c}) 2>/dev/null && echo "DONE ${c}"`).join("; "),
      { writable: [ws.path] },
    );
    assert.match(r.out, /DONE git -C evil/, "ordinary folders stay writable");
    assert.doesNotMatch(r.out, /DONE echo/);
    assert.deepEqual(listing(join(ws.path, ".git")), before, "no commondir or config.worktree left");
    git(ws.path, "status", "--short"); // on the host, as the user would
    assert.ok(!exists(join(ws.path, "PWNED")), "host git ran nothing planted");
  },
});

Deno.test({
  name: "P3 git still works inside: a commit in a protected repository, with git seeing no placeholders",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    git(ws.path, "init", "-q");
    const r = await sandboxed(
      "echo a > a && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm a && git status --short && echo OK",
      { writable: [ws.path] },
    );
    assert.equal(r.out, "OK\n", "clean status: the placeholders are invisible to git");
    assert.match(git(ws.path, "log", "--format=%s"), /^a$/m);
    assert.deepEqual(git(ws.path, "ls-files").trim(), "a");
  },
});

Deno.test({
  name:
    "P3 linked worktrees: a worktree under .paddock/worktrees stays writable, its .git file and git folder do not",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    git(ws.path, "init", "-q");
    Deno.writeTextFileSync(join(ws.path, "a"), "a\n");
    git(ws.path, "add", "a");
    git(ws.path, "commit", "-qm", "a");
    git(ws.path, "worktree", "add", "-q", ".paddock/worktrees/wt");
    const tree = join(ws.path, ".paddock/worktrees/wt");
    const dotGit = Deno.readTextFileSync(join(tree, ".git"));
    const linked = join(ws.path, ".git/worktrees/wt");
    const commondir = Deno.readTextFileSync(join(linked, "commondir"));
    const r = await sandboxed(
      [
        "echo b > b && git add b && git -c user.name=t -c user.email=t@example.com commit -qm b && echo COMMITTED",
        "echo 'gitdir: /tmp' > .git && echo CHANGED-DOTGIT",
        `echo /tmp > ${linked}/commondir && echo CHANGED-COMMONDIR`,
        "mkdir -p .paddock && echo '{}' > .paddock/settings.json && echo PLANTED",
        `echo x > ${ws.path}/.paddock/settings.json && echo PLANTED-ROOT`,
        `mv ${tree} ${ws.path}/.paddock/worktrees/moved && echo MOVED`,
      ].map((c) => `(${c}) 2>/dev/null`).join("; "),
      { writable: [ws.path], cwd: tree },
    );
    assert.equal(r.out, "COMMITTED\n");
    assert.equal(Deno.readTextFileSync(join(tree, ".git")), dotGit);
    assert.equal(Deno.readTextFileSync(join(linked, "commondir")), commondir);
    assert.deepEqual(listing(join(ws.path, ".paddock")), ["worktrees"]);
    assert.ok(!exists(join(tree, ".paddock")), "no placeholder left in the worktree");
  },
});

Deno.test({
  name:
    "P3 replaceable links: a protected path or git pointer through a symbolic link makes the sandbox refuse to start",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ws = await tempDir();
    Deno.mkdirSync(join(ws.path, "real"));
    Deno.symlinkSync("real", join(ws.path, ".vscode"));
    assert.throws(
      () => sandboxCommand(["true"], { writable: [ws.path], cwd: ws.path }),
      (e: unknown) =>
        e instanceof UnavailableError &&
        /"[^"]*\/\.vscode" is a symbolic link.*turn the sandbox off/.test(e.message),
    );
    Deno.removeSync(join(ws.path, ".vscode"));
    git(join(ws.path, "real"), "init", "-q");
    Deno.symlinkSync("real", join(ws.path, "link"));
    Deno.writeTextFileSync(join(ws.path, ".git"), "gitdir: link/.git\n");
    assert.throws(
      () => sandboxCommand(["true"], { writable: [ws.path], cwd: ws.path }),
      /"[^"]*\/link" is a symbolic link/,
    );
    assert.deepEqual(listing(ws.path), [".git", "link", "real"], "a refused start leaves nothing behind");
  },
});

Deno.test({
  name:
    "P3 concurrent runs: when one run ends, another still running stays protected; the last one cleans up",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const long = sandboxed(
      "sleep 1.5; echo x > .mcp.json 2>/dev/null && echo PLANTED; mkdir .vscode/x 2>/dev/null && echo PLANTED; true",
      {
        writable: [ws.path],
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    const short = await sandboxed("true", { writable: [ws.path] });
    assert.equal(short.code, 0);
    assert.ok(exists(join(ws.path, ".mcp.json")), "the placeholder outlives the short run");
    const r = await long;
    assert.doesNotMatch(r.out, /PLANTED/);
    assert.deepEqual(listing(ws.path), []);
  },
});

Deno.test({
  name: "P3 leftovers: a crashed run's placeholder is adopted and removed; a user's own empty folder is kept",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ws = await tempDir();
    Deno.mkdirSync(join(ws.path, ".vscode"));
    Deno.chmodSync(join(ws.path, ".vscode"), 0o1755); // what a killed run leaves
    Deno.mkdirSync(join(ws.path, ".idea")); // the user's own
    const plan = planMounts([ws.path], { hidden: [] });
    assert.ok(plan.placeholders.includes(join(ws.path, ".vscode")));
    assert.ok(!plan.placeholders.includes(join(ws.path, ".idea")));
    assert.ok(plan.mounts.some((m) => m.kind === "ro-bind" && m.path === join(ws.path, ".idea")));
    await plan.release();
    assert.deepEqual(listing(ws.path), [".idea"]);
  },
});

Deno.test({
  name: "P3 shell start-up files: in a writable home folder they cannot be created or edited",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const home = join(ws.path, "home");
    Deno.mkdirSync(home);
    Deno.writeTextFileSync(join(home, ".bashrc"), "# mine\n");
    const r = await sandboxed(
      [".bashrc", ".zshrc", ".profile", ".bash_profile", ".zshenv", ".gitconfig"].map((f) =>
        `echo evil >> ~/${f} 2>/dev/null && echo "PLANTED ${f}"`
      ).join("; ") + "; mv ~ ~/../h2 2>/dev/null && echo MOVED; true",
      { writable: [ws.path], home },
    );
    assert.doesNotMatch(r.out, /PLANTED|MOVED/);
    assert.deepEqual(listing(home), [".bashrc"]);
    assert.equal(Deno.readTextFileSync(join(home, ".bashrc")), "# mine\n");
  },
});

Deno.test({
  name:
    "P3 placeholders filled from outside during a run become ordinary folders (the task ledger in .paddock)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ws = await tempDir();
    const plan = planMounts([ws.path], { hidden: [] });
    Deno.mkdirSync(join(ws.path, ".paddock/tasks"), { recursive: true }); // Paddock itself, outside the sandbox
    await plan.release();
    assert.deepEqual(listing(ws.path), [".paddock"]);
    assert.equal(Deno.statSync(join(ws.path, ".paddock")).mode! & 0o7777, 0o755);
  },
});

Deno.test({
  name: "P3 pointers into protected trees: a git pointer into .vscode does not make any of it writable",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    Deno.mkdirSync(join(ws.path, ".vscode"));
    git(join(ws.path, ".vscode"), "init", "-q"); // a prepared repository: .vscode/.git is the git folder
    Deno.writeTextFileSync(join(ws.path, ".git"), "gitdir: .vscode/.git\n");
    const before = listing(join(ws.path, ".vscode/.git"));
    const r = await sandboxed(
      "echo x > .vscode/.git/hooks/pre-commit 2>/dev/null && echo WROTE; echo x > .vscode/.git/x 2>/dev/null && echo WROTE; true",
      { writable: [ws.path] },
    );
    assert.doesNotMatch(r.out, /WROTE/);
    assert.deepEqual(listing(join(ws.path, ".vscode/.git")), before);
  },
});

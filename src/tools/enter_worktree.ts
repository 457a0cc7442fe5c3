/**
 * EnterWorktree: makes a git worktree under the repository's
 * `.paddock/worktrees/<name>` on a new branch `worktree-<name>` and moves the
 * session's working directory into it, so the work happens apart from the
 * user's checkout.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { ConflictError, InvalidInputError, PermissionDeniedError, UnavailableError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { resolveSafePath } from "../session/workspace.ts";
import type { Session } from "../session/session.ts";

/** Where worktrees go, relative to the repository's top folder. */
export const WORKTREES_DIR = ".paddock/worktrees";
/** Prefix of the branch a worktree is made on. */
export const WORKTREE_BRANCH_PREFIX = "worktree-";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The worktree a session entered (the `worktree` slot).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { WorktreeInfo } from "./enter_worktree.ts";
 * const info: WorktreeInfo = {
 *   name: "fix-login",
 *   path: "/w/.paddock/worktrees/fix-login",
 *   branch: "paddock/fix-login",
 *   repoRoot: "/w",
 *   previousCwd: "/w",
 * };
 * assert.ok(info.path.startsWith(info.repoRoot));
 * ```
 */
export interface WorktreeInfo {
  /** The worktree's name. */
  name: string;
  /** Its folder. */
  path: string;
  /** Its branch. */
  branch: string;
  /** The repository's top folder it was made from. */
  repoRoot: string;
  /** The session's cwd before. */
  previousCwd: string;
}

/**
 * The worktree this session entered, if any.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { currentWorktree } from "./enter_worktree.ts";
 * assert.equal(currentWorktree(new Session({ roots: [Deno.cwd()] })), undefined);
 * ```
 */
export function currentWorktree(session: Session): WorktreeInfo | undefined {
  return session.slot<{ info?: WorktreeInfo }>("worktree", () => ({})).info;
}

/**
 * Input of EnterWorktree.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EnterWorktreeInput, enterWorktreeTool } from "./enter_worktree.ts";
 * const input: EnterWorktreeInput = { name: "fix-login" };
 * assert.ok(enterWorktreeTool.input.safeParse(input).success);
 * ```
 */
export interface EnterWorktreeInput {
  /** Name of the worktree; generated when absent. */
  name?: string;
}

const input: z.ZodType<EnterWorktreeInput> = z.strictObject({
  name: z.string()
    .regex(
      NAME,
      "name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit",
    )
    .refine((n) => !n.includes("..") && !n.endsWith(".lock") && !n.endsWith("."), {
      message: 'name must not contain ".." nor end with "." or ".lock"',
    })
    .optional()
    .describe("Name of the worktree (letters, digits, . _ -); default: a generated one"),
});

type Input = EnterWorktreeInput;

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Config every git call of ours passes, so nothing a prepared repository planted runs on the host:
 * no hooks (post-checkout runs on `worktree add`), no fsmonitor program, no submodule recursion.
 */
const SAFE_GIT_CONFIG: readonly string[] = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "submodule.recurse=false",
];

async function git(
  args: string[],
  cwd: string,
  signal: AbortSignal,
  extraConfig: readonly string[] = [],
): Promise<GitResult> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("git", {
      args: [...SAFE_GIT_CONFIG, ...extraConfig, ...args],
      cwd,
      signal,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    })
      .output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new UnavailableError("git is not installed or not on PATH: install git to use worktrees");
    }
    throw err;
  }
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout).trim(), stderr: dec.decode(out.stderr).trim() };
}

/**
 * `-c` pairs that switch off the filter drivers the repository's own config defines (a smudge
 * filter runs a program on checkout). The user's global and system drivers (git-lfs) stay.
 */
async function repoFilterOverrides(repoRoot: string, signal: AbortSignal): Promise<string[]> {
  const listed = await git(["config", "--show-scope", "--get-regexp", "^filter\\."], repoRoot, signal);
  const names = new Set<string>();
  for (const line of listed.stdout.split("\n")) {
    const m = /^(\S+)\s+filter\.(.+)\.(clean|smudge|process|required)(\s|$)/.exec(line);
    if (m && m[1] !== "global" && m[1] !== "system") names.add(m[2]);
  }
  return [...names].flatMap((n) =>
    ["clean", "smudge", "process"].flatMap((k) => ["-c", `filter.${n}.${k}=`]).concat([
      "-c",
      `filter.${n}.required=false`,
    ])
  );
}

/**
 * Structured result of EnterWorktree.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EnterWorktreeResult } from "./enter_worktree.ts";
 * const result: EnterWorktreeResult = {
 *   name: "fix-login",
 *   path: "/w/.paddock/worktrees/fix-login",
 *   branch: "paddock/fix-login",
 *   repoRoot: "/w",
 * };
 * assert.equal(result.branch, "paddock/fix-login");
 * ```
 */
export type EnterWorktreeResult = Omit<WorktreeInfo, "previousCwd">;

/**
 * EnterWorktree `{name?}`. Runs `git`; refuses outside a git repository, a
 * repository outside the workspace roots, a second worktree in one session
 * and a name already taken.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { enterWorktreeTool } from "./enter_worktree.ts";
 * assert.ok(enterWorktreeTool.programs?.includes("git"));
 * ```
 */
export const enterWorktreeTool: Tool<EnterWorktreeInput, EnterWorktreeResult> = defineTool({
  name: "EnterWorktree",
  description: "Creates a git worktree (a separate checkout on a new branch) under the repository's " +
    `${WORKTREES_DIR}/<name> and moves the session into it, so changes stay apart from the user's ` +
    "checkout. Use it only when the user asks to work in a worktree.",
  sideEffect: "Mutating",
  programs: ["git"],
  input,
  summarize: (i) => i.name ?? "(new worktree)",
  execute: async (i, ctx) => {
    const { session, signal } = ctx;
    const slot = session.slot<{ info?: WorktreeInfo }>("worktree", () => ({}));
    if (slot.info) {
      throw new ConflictError(
        `This session is already in worktree "${slot.info.name}" at "${slot.info.path}": keep working there`,
      );
    }
    const top = await git(["rev-parse", "--show-toplevel"], ctx.cwd, signal);
    if (top.code !== 0 || top.stdout === "") {
      throw new InvalidInputError(
        `"${ctx.cwd}" is not inside a git repository: EnterWorktree needs one (run "git init" and commit first)`,
      );
    }
    const repoRoot = Deno.realPathSync(top.stdout);
    if (!session.contains(repoRoot)) {
      throw new PermissionDeniedError(
        `The repository "${repoRoot}" is outside the workspace roots ${
          session.roots.map((r) => `"${r}"`).join(", ")
        }: open the repository's top folder as the workspace to use worktrees`,
      );
    }
    const name = i.name ?? `wt-${crypto.randomUUID().slice(0, 8)}`;
    const branch = `${WORKTREE_BRANCH_PREFIX}${name}`;
    // `.paddock` or `worktrees` may be symlinks: the real folder must stay inside the workspace
    const base =
      resolveSafePath(join(repoRoot, WORKTREES_DIR), ctx, { param: "name", mustExist: false, kind: "dir" })
        .real;
    const path = join(base, name);
    if (exists(path)) {
      throw new ConflictError(`A worktree folder "${path}" already exists: choose another name`);
    }
    const head = await git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repoRoot, signal);
    if (head.code !== 0) {
      throw new InvalidInputError(
        `The repository "${repoRoot}" has no commits yet: make a first commit, then try again`,
      );
    }
    const known = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], repoRoot, signal);
    Deno.mkdirSync(base, { recursive: true });
    // keep the worktrees out of the user's `git status` without touching their .gitignore
    const ignore = join(base, ".gitignore");
    if (!exists(ignore)) Deno.writeTextFileSync(ignore, "*\n");
    const args = known.code === 0
      ? ["worktree", "add", path, branch]
      : ["worktree", "add", "-b", branch, path, "HEAD"];
    const add = await git(args, repoRoot, signal, await repoFilterOverrides(repoRoot, signal));
    if (add.code !== 0) {
      throw new ConflictError(`git worktree add failed (exit ${add.code}): ${add.stderr || add.stdout}`);
    }
    const real = Deno.realPathSync(path);
    const previousCwd = session.cwd;
    if (!session.setCwd(real)) {
      throw new PermissionDeniedError(
        `The worktree "${real}" is outside the workspace roots: it was left in place`,
      );
    }
    slot.info = { name, path: real, branch, repoRoot, previousCwd };
    session.emit({ type: "worktree", name, path: real, branch, repoRoot });
    return {
      text: `Created worktree "${name}" at ${real} on branch ${branch}${
        known.code === 0 ? " (existing branch)" : ""
      }; the working directory is now ${real}`,
      data: { name, path: real, branch, repoRoot },
    };
  },
});

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

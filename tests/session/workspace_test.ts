import assert from "node:assert/strict";
import { InvalidInputError, NotFoundError, PermissionDeniedError } from "../../mod.ts";
import { resolveSafePath } from "../../src/session/mod.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("Path safety accepts a file inside the workspace and returns its real path", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("src/a.txt", "a");
  const r = resolveSafePath(p, ws.session);
  assert.equal(r.real, p);
  assert.ok(r.info?.isFile);
});

Deno.test("Path safety refuses a relative path and names the absolute one meant", async () => {
  await using ws = await tempWorkspace();
  assert.throws(
    () => resolveSafePath("src/a.txt", ws.session),
    (e: Error) => e instanceof InvalidInputError && e.message.includes(`did you mean "${ws.dir}/src/a.txt"`),
  );
});

Deno.test("Path safety resolves .. before checking containment", async () => {
  await using ws = await tempWorkspace();
  assert.throws(() => resolveSafePath(`${ws.dir}/../../etc/passwd`, ws.session), PermissionDeniedError);
});

Deno.test("Path safety refuses a symlink inside the workspace that points outside", async () => {
  await using ws = await tempWorkspace();
  await Deno.symlink("/etc/passwd", ws.path("passwd"));
  assert.throws(
    () => resolveSafePath(ws.path("passwd"), ws.session),
    (e: Error) => e instanceof PermissionDeniedError && /resolves to "\/etc\/passwd"/.test(e.message),
  );
  await Deno.symlink("/etc", ws.path("etcdir"));
  assert.throws(
    () => resolveSafePath(ws.path("etcdir/new-file"), ws.session, { mustExist: false }),
    PermissionDeniedError,
  );
  await Deno.symlink("/nonexistent-target/file", ws.path("dangling"));
  assert.throws(
    () => resolveSafePath(ws.path("dangling"), ws.session, { mustExist: false }),
    PermissionDeniedError,
  );
});

Deno.test("Path safety accepts a symlink that stays inside", async () => {
  await using ws = await tempWorkspace();
  const target = await ws.write("real.txt", "x");
  await Deno.symlink(target, ws.path("link.txt"));
  assert.equal(resolveSafePath(ws.path("link.txt"), ws.session).real, target);
});

Deno.test("Path safety refuses NUL bytes, device files and directories where a file is needed", async () => {
  await using ws = await tempWorkspace();
  assert.throws(() => resolveSafePath(`${ws.dir}/a\0b`, ws.session), /NUL byte/);
  const devSession = { cwd: "/", roots: ["/dev"] };
  assert.throws(() => resolveSafePath("/dev/null", devSession), /device, socket or pipe/);
  assert.throws(() => resolveSafePath(ws.dir, ws.session), /is a directory, not a file/);
  assert.equal(resolveSafePath(ws.dir, ws.session, { kind: "dir" }).real, ws.dir);
});

Deno.test("Path safety reports a missing file, or allows it for creation", async () => {
  await using ws = await tempWorkspace();
  assert.throws(() => resolveSafePath(ws.path("nope.txt"), ws.session), NotFoundError);
  const r = resolveSafePath(ws.path("new/dir/file.txt"), ws.session, { mustExist: false });
  assert.equal(r.real, ws.path("new/dir/file.txt"));
  assert.equal(r.info, undefined);
});

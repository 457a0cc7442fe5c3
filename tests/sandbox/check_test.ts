import assert from "node:assert/strict";
import { formatCheckTable, sandboxCheck } from "../../src/sandbox/check.ts";
import { HAS_BWRAP } from "../security/_sandboxed.ts";

Deno.test({
  name: "sandbox check: every escape probe fails to escape on this machine",
  ignore: !HAS_BWRAP,
  fn: async () => {
    const rows = await sandboxCheck({ settings: { maxProcesses: 64, maxMemoryMiB: 128 }, timeoutMs: 15_000 });
    const table = formatCheckTable(rows);
    assert.ok(rows.length >= 16, table);
    assert.deepEqual(rows.filter((r) => !r.ok), [], table);
    for (
      const probe of [
        "Remount / read-write",
        "Unmount /tmp to reach the host's /tmp",
        "Create a block device (mknod)",
        "Reach a host TCP port",
        "Read a secret from the environment",
        "Read credential stores in the home folder",
        "Fork storm",
        "Memory hog",
      ]
    ) assert.ok(rows.some((r) => r.probe.startsWith(probe)), `${probe} is probed`);
    assert.match(table, /all \d+ probes passed\n$/);
  },
});

Deno.test("sandbox check table: one aligned line per probe, failures in capitals, a summary", () => {
  const table = formatCheckTable([
    { probe: "Remount / read-write", ok: true, detail: "permission denied" },
    { probe: "Fork storm", ok: false, detail: "4000 processes" },
  ]);
  assert.equal(
    table,
    [
      "probe                 result  detail",
      "Remount / read-write  pass    permission denied",
      "Fork storm            FAIL    4000 processes",
      "1 of 2 probes FAILED",
      "",
    ].join("\n"),
  );
});

import assert from "node:assert/strict";
import {
  assertPublicHost,
  hostMatchesDomain,
  isLocalHostname,
  isPrivateAddress,
} from "../../src/web/net_guard.ts";

Deno.test("isPrivateAddress sorts addresses into private and public", () => {
  const table: [string, boolean][] = [
    ["127.0.0.1", true],
    ["127.255.0.9", true],
    ["10.0.0.1", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["172.32.0.1", false],
    ["192.168.1.1", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["100.128.0.1", false],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["255.255.255.255", true],
    ["8.8.8.8", false],
    ["93.184.216.34", false],
    ["::1", true],
    ["[::1]", true],
    ["::", true],
    ["fe80::1", true],
    ["fd12:3456::1", true],
    ["ff02::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["::ffff:8.8.8.8", false],
    ["64:ff9b::a00:1", true],
    ["2001:db8::1", true],
    ["2606:4700:4700::1111", false],
    ["example.com", false],
    ["1.2.3", false],
    // IPv4-mapped, NAT64 and zoned IPv6
    ["0:0:0:0:0:ffff:127.0.0.1", true],
    ["[::ffff:127.0.0.1]", true],
    ["::ffff:a9fe:a9fe", true],
    ["::ffff:192.168.0.1", true],
    ["64:ff9b::127.0.0.1", true],
    ["64:ff9b::8.8.8.8", false],
    ["fe80::1%eth0", true],
    ["FF02::1", true],
    ["fc00::1", true],
    // cloud metadata
    ["169.254.170.2", true],
    ["100.100.100.200", true],
    ["fd00:ec2::254", true],
    // IPv4 shorthands a URL reads as addresses
    ["127.1", true],
    ["0x7f.1", true],
    ["0x7f000001", true],
    ["2130706433", true],
    ["0177.0.0.1", true],
    ["0", true],
    ["134744072", false],
    ["1.2.3.4.5", false],
    ["cafe.face", false],
  ];
  for (const [ip, expected] of table) assert.equal(isPrivateAddress(ip), expected, ip);
});

Deno.test("isLocalHostname flags local names without resolving them", () => {
  const table: [string, boolean][] = [
    ["localhost", true],
    ["LOCALHOST.", true],
    ["api.localhost", true],
    ["printer.local", true],
    ["db.internal", true],
    ["intranet", true],
    ["router.home.arpa", true],
    ["example.com", false],
    ["docs.deno.com", false],
    ["8.8.8.8", false],
    ["10.9.8.7", true],
  ];
  for (const [host, expected] of table) assert.equal(isLocalHostname(host), expected, host);
});

Deno.test("hostMatchesDomain matches a domain and its subdomains only", () => {
  const table: [string, string, boolean][] = [
    ["deno.com", "deno.com", true],
    ["docs.deno.com", "deno.com", true],
    ["notdeno.com", "deno.com", false],
    ["deno.com.evil.net", "deno.com", false],
    ["docs.deno.com", "*.deno.com", true],
    ["deno.com", "*.deno.com", false],
    ["Docs.Deno.COM", "https://deno.com/path", true],
  ];
  for (const [host, domain, expected] of table) {
    assert.equal(hostMatchesDomain(host, domain), expected, `${host} ~ ${domain}`);
  }
});

Deno.test("assertPublicHost refuses names that resolve to private addresses and allows listed hosts", async () => {
  const resolveHost = (name: string) =>
    Promise.resolve(name === "evil.example" ? ["8.8.8.8", "192.168.0.5"] : ["8.8.4.4"]);
  await assert.rejects(
    assertPublicHost("evil.example", { resolveHost }),
    /Refused to reach "evil\.example": it resolves to the private address "192\.168\.0\.5"/,
  );
  await assertPublicHost("good.example", { resolveHost });
  await assert.rejects(assertPublicHost("localhost", { resolveHost }), /private or local address/);
  await assertPublicHost("localhost", { resolveHost, allowPrivateHosts: ["localhost"] });
  await assertPublicHost("[::1]", { allowPrivateHosts: ["::1"] });
  await assertPublicHost("10.0.0.1", { allowPrivateHosts: ["*"] });
});

Deno.test("assertPublicHost refuses the loopback and metadata hosts URLs normalise odd forms into", async () => {
  const resolveHost = () => Promise.reject(new Error("an IP literal must not be resolved"));
  const table: [string, string][] = [
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://0/", "0.0.0.0"],
    ["http://0xa9.254.43518/", "169.254.169.254"],
    ["http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
    ["http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "[::ffff:a9fe:a9fe]"],
    ["http://[::1]/", "[::1]"],
  ];
  for (const [url, host] of table) {
    const { hostname } = new URL(url);
    assert.equal(hostname, host, url);
    await assert.rejects(assertPublicHost(hostname, { resolveHost }), /private or local address/, url);
  }
  // the same forms refused when a caller passes them without a URL
  for (const raw of ["0x7f.1", "2130706433", "127.1", "::ffff:127.0.0.1"]) {
    await assert.rejects(assertPublicHost(raw, { resolveHost }), /private or local address/, raw);
  }
  await assertPublicHost("134744072", { resolveHost }); // 8.8.8.8
});

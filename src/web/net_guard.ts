/**
 * Network guard for the web tools: refuses private, loopback, link-local and
 * other non-public addresses (the usual server-side request forgery targets:
 * `127.0.0.1`, `169.254.169.254`, `10.x`, `[::1]`, `localhost`…) unless the
 * host is explicitly allowed, and matches hosts against domain lists.
 *
 * A hostname is checked as written and, through an injected resolver, by the
 * addresses it resolves to. DNS can change between that check and the fetch
 * (rebinding); Deno's `--allow-net=<hosts>` is the hard boundary behind it.
 *
 * @module
 */
import type { BlockList } from "node:net";
import { PermissionDeniedError } from "../errors.ts";

/**
 * Resolves a hostname to IP addresses (empty when unknown).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assertPublicHost, type HostResolver } from "./net_guard.ts";
 * // a resolver with fixed answers instead of DNS
 * const resolve: HostResolver = (host) =>
 *   Promise.resolve(host === "intranet.example" ? ["10.0.0.7"] : ["93.184.216.34"]);
 * await assertPublicHost("www.example", { resolveHost: resolve });
 * await assert.rejects(assertPublicHost("intranet.example", { resolveHost: resolve }));
 * ```
 */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<string[]>;

/**
 * The options {@link assertPublicHost} takes.
 *
 * @example
 * ```ts
 * import { assertPublicHost, type NetGuardOptions } from "./net_guard.ts";
 * const options: NetGuardOptions = {
 *   allowPrivateHosts: ["127.0.0.1"],
 *   resolveHost: () => Promise.resolve(["127.0.0.1"]),
 * };
 * await assertPublicHost("127.0.0.1", options);
 * ```
 */
export interface NetGuardOptions {
  /** Hostnames or IP literals allowed even though they are private or local (`127.0.0.1`, `localhost`). Default none. */
  allowPrivateHosts?: readonly string[];
  /** Resolves hostnames to check the addresses behind them. Default {@link resolveWithDeno}. */
  resolveHost?: HostResolver;
  /** Cancels the lookup. */
  signal?: AbortSignal;
}

/** Names that always mean this machine or a local network. */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet"] as const;

/**
 * Strips the brackets of an IPv6 literal and a trailing dot, lower-cases.
 *
 * @example
 * ```ts
 * import { normalizeHost } from "./net_guard.ts";
 * import assert from "node:assert/strict";
 * assert.equal(normalizeHost("[::1]"), "::1");
 * assert.equal(normalizeHost("Example.COM."), "example.com");
 * ```
 */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/** Refused IPv4 ranges; BlockList also applies them to their IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`). */
const REFUSED_V4: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // this network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT (Alibaba Cloud's metadata is 100.100.100.200)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

/** Refused IPv6 ranges. */
const REFUSED_V6: readonly (readonly [string, number])[] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local (AWS's IPv6 metadata is fd00:ec2::254)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["2001:db8::", 32], // documentation
  // NAT64 (64:ff9b::/96) reaches the IPv4 address in its last 32 bits
  ...REFUSED_V4.map(([ip, prefix]) => [`64:ff9b::${ip}`, 96 + prefix] as const),
];

/** Cloud metadata services, named on their own although the ranges above hold them. */
const METADATA_ADDRESSES = ["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"] as const;

/**
 * node:net, loaded on first use: importing it starts the rest of Deno's Node
 * layer (about 28 ms of CPU and 4.5 MiB at start-up, bench/README.md), which
 * a command that never checks an address should not pay. `process` is read
 * only here, since touching it also starts that layer.
 */
let net: typeof import("node:net") | undefined;
let refusedList: BlockList | undefined;

function isIP(input: string): number {
  net ??= process.getBuiltinModule("node:net");
  return net.isIP(input);
}

function refused(): BlockList {
  if (refusedList) return refusedList;
  net ??= process.getBuiltinModule("node:net");
  const list = new net.BlockList();
  for (const [ip, prefix] of REFUSED_V4) list.addSubnet(ip, prefix, "ipv4");
  for (const [ip, prefix] of REFUSED_V6) list.addSubnet(ip, prefix, "ipv6");
  for (const ip of METADATA_ADDRESSES) list.addAddress(ip, isIP(ip) === 6 ? "ipv6" : "ipv4");
  return refusedList = list;
}

/**
 * `host` as an IP address node:net accepts (zone id dropped), or undefined.
 * The shorthand IPv4 forms that URLs normalise (`127.1`, `0x7f.1`,
 * `2130706433`, `0177.0.0.1`) are read the way WHATWG URL reads them, so a
 * caller that passes a host not taken from a `URL` cannot slip one past.
 */
function ipOf(host: string): { address: string; family: "ipv4" | "ipv6" } | undefined {
  const h = normalizeHost(host).split("%")[0];
  const family = isIP(h);
  if (family) return { address: h, family: family === 4 ? "ipv4" : "ipv6" };
  if (!/^[0-9a-fx.]+$/.test(h)) return undefined;
  let parsed: string;
  try {
    parsed = new URL(`http://${h}/`).hostname;
  } catch {
    return undefined; // a numeric last label that is no IPv4 address (`1.2.3.4.5`, `0x1g`): no host
  }
  return isIP(parsed) === 4 ? { address: parsed, family: "ipv4" } : undefined;
}

/**
 * True when `ip` is an IP literal outside the public internet: loopback,
 * private ranges, link-local (cloud metadata), carrier-grade NAT, multicast,
 * documentation and reserved ranges, and the IPv4-mapped and NAT64 IPv6
 * forms of these. False for public addresses and for anything that is not
 * an IP literal. Parsing and range checks are node:net's (`isIP`,
 * `BlockList`); shorthand IPv4 (`127.1`, `0x7f.1`, `2130706433`) is read as
 * a URL reads it.
 *
 * @example
 * ```ts
 * import { isPrivateAddress } from "./net_guard.ts";
 * import assert from "node:assert/strict";
 * assert.ok(isPrivateAddress("127.0.0.1") && isPrivateAddress("::ffff:10.0.0.1"));
 * assert.ok(isPrivateAddress(new URL("http://0x7f.1/").hostname)); // "127.0.0.1"
 * assert.ok(!isPrivateAddress("93.184.216.34"));
 * ```
 */
export function isPrivateAddress(ip: string): boolean {
  const parsed = ipOf(ip);
  return parsed !== undefined && refused().check(parsed.address, parsed.family);
}

/** True when `host` is an IP literal (v4 or v6, brackets allowed, URL shorthand IPv4 forms too). */
export function isIpLiteral(host: string): boolean {
  return ipOf(host) !== undefined;
}

/**
 * True when a hostname (not resolved) names a local or private place: a
 * private IP literal, `localhost` and `*.localhost`, `.local`, `.internal`,
 * `.home.arpa`, `.lan`, or a single label such as `intranet`.
 *
 * @example
 * ```ts
 * import { isLocalHostname } from "./net_guard.ts";
 * import assert from "node:assert/strict";
 * assert.ok(isLocalHostname("localhost") && isLocalHostname("printer.local"));
 * assert.ok(!isLocalHostname("example.com"));
 * ```
 */
export function isLocalHostname(host: string): boolean {
  const h = normalizeHost(host);
  if (isIpLiteral(h)) return isPrivateAddress(h);
  if (h === "localhost" || !h.includes(".")) return true;
  return LOCAL_SUFFIXES.some((s) => h.endsWith(s));
}

/**
 * True when `host` is `domain` or one of its subdomains. A leading `*.`
 * matches subdomains only.
 *
 * @example
 * ```ts
 * import { hostMatchesDomain } from "./net_guard.ts";
 * import assert from "node:assert/strict";
 * assert.ok(hostMatchesDomain("docs.deno.com", "deno.com"));
 * assert.ok(!hostMatchesDomain("notdeno.com", "deno.com"));
 * assert.ok(!hostMatchesDomain("deno.com", "*.deno.com"));
 * ```
 */
export function hostMatchesDomain(host: string, domain: string): boolean {
  const h = normalizeHost(host);
  let d = normalizeHost(domain.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").split("/")[0]);
  if (d.startsWith("*.")) {
    d = d.slice(2);
    return h.endsWith(`.${d}`);
  }
  return h === d || h.endsWith(`.${d}`);
}

/** True when `host` is listed in `allowPrivateHosts` (exact host, IPv6 brackets ignored). */
export function isAllowedPrivateHost(host: string, allowPrivateHosts: readonly string[] = []): boolean {
  const h = normalizeHost(host);
  return allowPrivateHosts.some((a) => a === "*" || normalizeHost(a) === h);
}

/**
 * Resolves A and AAAA records with `Deno.resolveDns`. Lookup failures give
 * an empty list: the fetch that follows reports them better.
 */
export async function resolveWithDeno(hostname: string, signal: AbortSignal): Promise<string[]> {
  const lookups = (["A", "AAAA"] as const).map((type) =>
    Deno.resolveDns(hostname, type, { signal }).catch(() => [] as string[])
  );
  return (await Promise.all(lookups)).flat();
}

/**
 * Refuses a host that is private or local unless `allowPrivateHosts` names
 * it: first by its name, then by every address it resolves to.
 *
 * @example
 * ```ts
 * import { assertPublicHost } from "./net_guard.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(assertPublicHost("169.254.169.254"), /private or local address/);
 * await assertPublicHost("127.0.0.1", { allowPrivateHosts: ["127.0.0.1"] });
 * ```
 */
export async function assertPublicHost(host: string, options: NetGuardOptions = {}): Promise<void> {
  if (isAllowedPrivateHost(host, options.allowPrivateHosts)) return;
  const h = normalizeHost(host);
  const hint = `add it to the web tools' allowPrivateHosts option to allow it`;
  if (isLocalHostname(h)) {
    throw new PermissionDeniedError(`Refused to reach "${h}": it is a private or local address: ${hint}`);
  }
  if (isIpLiteral(h)) return;
  const resolve = options.resolveHost ?? resolveWithDeno;
  const addresses = await resolve(h, options.signal ?? new AbortController().signal);
  const bad = addresses.find((a) => isPrivateAddress(a));
  if (bad !== undefined) {
    throw new PermissionDeniedError(
      `Refused to reach "${h}": it resolves to the private address "${bad}": ${hint}`,
    );
  }
}

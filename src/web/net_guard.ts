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
import { PermissionDeniedError } from "../errors.ts";

/** Resolves a hostname to IP addresses (empty when unknown). */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<string[]>;

/** The options {@link assertPublicHost} takes. */
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
 * console.assert(normalizeHost("[::1]") === "::1" && normalizeHost("Example.COM.") === "example.com");
 * ```
 */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/** Parses a dotted IPv4 address into its four bytes, or undefined. */
function parseIPv4(ip: string): number[] | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined;
}

/** Parses an IPv6 address (zone id dropped, dotted IPv4 tail allowed) into eight 16-bit groups, or undefined. */
function parseIPv6(ip: string): number[] | undefined {
  let s = ip.split("%")[0];
  if (!s.includes(":")) return undefined;
  const lastColon = s.lastIndexOf(":");
  const tail = s.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = parseIPv4(tail);
    if (!v4) return undefined;
    s = `${s.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${
      ((v4[2] << 8) | v4[3]).toString(16)
    }`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const parse = (g: string) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN);
  const groups = (part: string) => (part === "" ? [] : part.split(":").map(parse));
  const head = groups(halves[0]);
  let nums = head;
  if (halves.length === 2) {
    const rest = groups(halves[1]);
    const fill = 8 - head.length - rest.length;
    if (fill < 1) return undefined;
    nums = [...head, ...new Array<number>(fill).fill(0), ...rest];
  }
  return nums.length === 8 && nums.every((n) => n >= 0 && n <= 0xffff) ? nums : undefined;
}

function isPrivateIPv4(b: number[]): boolean {
  const [a, c] = b;
  return a === 0 || a === 10 || a === 127 || a >= 224 || // this network, private, loopback, multicast, reserved
    (a === 100 && c >= 64 && c <= 127) || // carrier-grade NAT
    (a === 169 && c === 254) || // link-local, cloud metadata
    (a === 172 && c >= 16 && c <= 31) ||
    (a === 192 && c === 168) ||
    (a === 192 && c === 0 && (b[2] === 0 || b[2] === 2)) || // IETF protocol, TEST-NET-1
    (a === 198 && (c === 18 || c === 19)) || // benchmarking
    (a === 198 && c === 51 && b[2] === 100) || // TEST-NET-2
    (a === 203 && c === 0 && b[2] === 113); // TEST-NET-3
}

function isPrivateIPv6(g: number[]): boolean {
  if (g.slice(0, 7).every((x) => x === 0) && g[7] <= 1) return true; // :: and ::1
  const embedded = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff];
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return isPrivateIPv4(embedded); // ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPrivateIPv4(embedded); // NAT64
  if ((g[0] & 0xfe00) === 0xfc00) return true; // unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // link-local
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  return false;
}

/**
 * True when `ip` is an IP literal outside the public internet: loopback,
 * private ranges, link-local (cloud metadata), carrier-grade NAT, multicast,
 * documentation and reserved ranges, IPv4-mapped IPv6 forms of these. False
 * for public addresses and for anything that is not an IP literal.
 *
 * @example
 * ```ts
 * import { isPrivateAddress } from "./net_guard.ts";
 * console.assert(isPrivateAddress("127.0.0.1") && isPrivateAddress("::ffff:10.0.0.1"));
 * console.assert(!isPrivateAddress("93.184.216.34"));
 * ```
 */
export function isPrivateAddress(ip: string): boolean {
  const h = normalizeHost(ip);
  const v4 = parseIPv4(h);
  if (v4) return isPrivateIPv4(v4);
  const v6 = parseIPv6(h);
  return v6 ? isPrivateIPv6(v6) : false;
}

/** True when `host` is an IP literal (v4 or v6, brackets allowed). */
export function isIpLiteral(host: string): boolean {
  const h = normalizeHost(host);
  return parseIPv4(h) !== undefined || parseIPv6(h) !== undefined;
}

/**
 * True when a hostname (not resolved) names a local or private place: a
 * private IP literal, `localhost` and `*.localhost`, `.local`, `.internal`,
 * `.home.arpa`, `.lan`, or a single label such as `intranet`.
 *
 * @example
 * ```ts
 * import { isLocalHostname } from "./net_guard.ts";
 * console.assert(isLocalHostname("localhost") && isLocalHostname("printer.local"));
 * console.assert(!isLocalHostname("example.com"));
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
 * console.assert(hostMatchesDomain("docs.deno.com", "deno.com"));
 * console.assert(!hostMatchesDomain("notdeno.com", "deno.com"));
 * console.assert(!hostMatchesDomain("deno.com", "*.deno.com"));
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
 * let refused = false;
 * try { await assertPublicHost("169.254.169.254"); } catch { refused = true; }
 * console.assert(refused);
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

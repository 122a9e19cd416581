import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/**
 * Guards against sending server-side requests (webhooks) into private networks: loopback,
 * RFC 1918, link-local (cloud metadata at 169.254.169.254), CGNAT, unique-local IPv6 and every
 * other special-purpose range. Only global unicast addresses count as public.
 */

/** Hostnames that never resolve to the public internet, whatever DNS says. */
const INTERNAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/i;

/** "[::1]" (URL.hostname form) → "::1". */
const unbracket = (host: string) => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host);

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(unbracket(host));
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * True for a global unicast IPv4/IPv6 address. IPv4-mapped IPv6 is judged as the IPv4 it carries;
 * tunnelling and translation prefixes (6to4, Teredo, NAT64) are refused because they can embed
 * a private IPv4 address.
 */
export function isPublicIp(address: string): boolean {
  const raw = unbracket(address);
  if (!ipaddr.isValid(raw)) return false;
  const ip = ipaddr.process(raw);
  if (ip.range() !== "unicast") return false;
  // ipaddr.js calls every unlisted IPv6 address unicast, including the deprecated IPv4-compatible
  // ::a.b.c.d (written ::7f00:1 by URL parsers), which some stacks still tunnel to IPv4.
  // Only the IANA global unicast block is public.
  return ip.kind() === "ipv4" || ip.match(GLOBAL_UNICAST_V6);
}

/**
 * Judges a hostname without DNS: an IP literal by its range, a name by whether it is a
 * single label or an internal-only suffix. A public-looking name can still resolve to a private
 * address, so whoever connects must also check the resolved address (resolvePublicAddresses).
 */
export function isPublicHostname(hostname: string): boolean {
  const host = unbracket(hostname);
  if (isIpLiteral(host)) return isPublicIp(host);
  const labels = dnsLabels(host);
  if (labels === undefined || labels.length < 2) return false;
  return !INTERNAL_NAME.test(labels.join("."));
}

/**
 * The labels of a DNS name, or undefined when one is empty. One trailing dot is the root
 * (`example.com.` is the fully qualified `example.com`); any other empty label (`localhost..`,
 * `a..b`, `.a`) is not a valid name, yet resolvers differ in what they make of it, so such a name
 * is refused rather than normalised into something the check and the connect might read apart.
 */
function dnsLabels(host: string): string[] | undefined {
  const labels = (host.endsWith(".") ? host.slice(0, -1) : host).split(".");
  return labels.every((l) => l.length > 0) ? labels : undefined;
}

export class NonPublicAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly address?: string,
  ) {
    super(address ? `${hostname} resolves to non-public address ${address}` : `${hostname} is not a public host`);
  }
}

export type Resolver = (hostname: string) => Promise<{ address: string }[]>;
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Resolves a hostname and returns its addresses only if every one is public; connect to one
 * of these (not to the name again) so DNS rebinding between check and connect cannot slip in.
 */
export async function resolvePublicAddresses(hostname: string, resolve: Resolver = systemResolver): Promise<string[]> {
  const host = unbracket(hostname);
  if (!isPublicHostname(host)) throw new NonPublicAddressError(host);
  if (isIpLiteral(host)) return [host];
  const addresses = (await resolve(host)).map((a) => a.address);
  if (addresses.length === 0) throw new NonPublicAddressError(host);
  const privateOne = addresses.find((a) => !isPublicIp(a));
  if (privateOne) throw new NonPublicAddressError(host, privateOne);
  return addresses;
}

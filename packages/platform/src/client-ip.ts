import ipaddr from "ipaddr.js";
import { z } from "zod";

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
export type TrustedProxies = Cidr[];

/** "10.0.0.0/8, 192.168.1.7, fd00::/8" → ranges; throws naming the first bad entry. */
export function parseTrustedProxies(list: string): TrustedProxies {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      if (entry.includes("/")) return ipaddr.parseCIDR(entry);
      const addr = ipaddr.parse(entry);
      return [addr, addr.kind() === "ipv4" ? 32 : 128] as Cidr;
    });
}

/** Canonical text of an address ("::ffff:1.2.3.4" → "1.2.3.4"), or undefined when it is none. */
function normalize(raw: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  return ipaddr.isValid(s) ? ipaddr.process(s) : undefined;
}

const isTrusted = (addr: ipaddr.IPv4 | ipaddr.IPv6, trusted: TrustedProxies) =>
  trusted.some(([range, bits]) => addr.kind() === range.kind() && addr.match(range, bits));

/**
 * The client's address: the connection's source, unless that source is a trusted proxy, in which
 * case the rightmost X-Forwarded-For entry that is not a trusted proxy (entries to its left are
 * whatever the client chose to send and cannot be believed).
 */
export function clientIp(remote: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  const peer = normalize(remote);
  if (!peer) return remote;
  if (trusted.length === 0 || !forwardedFor || !isTrusted(peer, trusted)) return peer.toString();
  const hops = forwardedFor.split(",").reverse();
  let client = peer;
  for (const hop of hops) {
    const addr = normalize(hop);
    // A hop our own proxy wrote but we cannot parse: stop at the last address we can vouch for.
    if (!addr) break;
    client = addr;
    if (!isTrusted(addr, trusted)) break;
  }
  return client.toString();
}

/**
 * The per-IP counting key: an IPv4 address, or the /64 of an IPv6 one (a single subscriber
 * usually holds a whole /64, so counting single addresses would let it multiply its quota).
 */
export function ipRateKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv4") return ip;
  return `${(addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(":")}::/64`;
}

/** The TRUSTED_PROXIES variable: comma-separated CIDRs or addresses of our own reverse proxies. */
export const trustedProxies = () =>
  z
    .string()
    .default("")
    .transform((v, ctx) => {
      try {
        return parseTrustedProxies(v);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: `must be a comma-separated list of CIDRs or addresses (${(e as Error).message})` });
        return z.NEVER;
      }
    });

import { describe, expect, test } from "bun:test";
import { clientIp, ipRateKey, parseTrustedProxies } from "./client-ip.ts";

const proxies = parseTrustedProxies("10.0.0.0/8, 192.168.1.7, fd00::/8");

describe("clientIp", () => {
  test("without trusted proxies the connection's address counts and X-Forwarded-For is ignored", () => {
    expect(clientIp("203.0.113.5", "1.2.3.4", [])).toBe("203.0.113.5");
    expect(clientIp("::ffff:203.0.113.5", undefined, [])).toBe("203.0.113.5");
  });

  test("a connection from an untrusted address cannot claim another one", () => {
    expect(clientIp("203.0.113.5", "1.2.3.4", proxies)).toBe("203.0.113.5");
  });

  test("behind trusted proxies the rightmost untrusted hop is the client", () => {
    expect(clientIp("10.1.1.1", "6.6.6.6, 198.51.100.9, 192.168.1.7", proxies)).toBe("198.51.100.9");
    expect(clientIp("::ffff:10.1.1.1", "198.51.100.9", proxies)).toBe("198.51.100.9");
    expect(clientIp("fd00::1", "[2001:db8::5]:4433", proxies)).toBe("2001:db8::5");
    expect(clientIp("10.1.1.1", "198.51.100.9:5555", proxies)).toBe("198.51.100.9");
  });

  test("when every hop is a trusted proxy the leftmost one is used; junk stops the walk", () => {
    expect(clientIp("10.1.1.1", "10.2.2.2, 10.3.3.3", proxies)).toBe("10.2.2.2");
    expect(clientIp("10.1.1.1", "1.1.1.1, garbage, 10.3.3.3", proxies)).toBe("10.3.3.3");
    expect(clientIp("10.1.1.1", undefined, proxies)).toBe("10.1.1.1");
  });

  test("a bad TRUSTED_PROXIES entry is refused", () => {
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow();
    expect(() => parseTrustedProxies("proxy.local")).toThrow();
    expect(parseTrustedProxies(" ")).toEqual([]);
  });
});

test("IPv6 clients are counted per /64, IPv4 per address", () => {
  expect(ipRateKey("2001:db8:1:2:aaaa::1")).toBe(ipRateKey("2001:db8:1:2:bbbb::9"));
  expect(ipRateKey("2001:db8:1:2::1")).not.toBe(ipRateKey("2001:db8:1:3::1"));
  expect(ipRateKey("198.51.100.9")).toBe("198.51.100.9");
});

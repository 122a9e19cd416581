import { describe, expect, test } from "bun:test";
import { NonPublicAddressError, type Resolver } from "@payaccept/domain";
import { InvalidWebhookUrlError, resolveTarget } from "./target.ts";

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address }));
const noDns: Resolver = async (host) => {
  throw new Error(`DNS must not be asked about ${host}`);
};
const strict = (url: string, resolve: Resolver = noDns) => resolveTarget(url, { allowPrivate: false, resolve });

describe("webhook URLs whose host is a non-public IP literal are refused without DNS", () => {
  test.each([
    // IPv4 special ranges
    ["http://0.0.0.0/h", "unspecified (this host)"],
    ["http://0.1.2.3/h", "0.0.0.0/8"],
    ["http://127.0.0.1/h", "loopback"],
    ["http://127.255.255.254/h", "loopback, end of 127/8"],
    ["http://10.0.0.1/h", "private 10/8"],
    ["http://172.16.0.1/h", "private 172.16/12"],
    ["http://172.31.255.255/h", "private 172.16/12, end"],
    ["http://192.168.1.1/h", "private 192.168/16"],
    ["http://169.254.169.254/latest/meta-data", "link-local (cloud metadata)"],
    ["http://100.64.0.1/h", "carrier-grade NAT 100.64/10"],
    ["http://100.127.255.254/h", "carrier-grade NAT, end"],
    ["http://224.0.0.1/h", "multicast"],
    ["http://239.255.255.250/h", "multicast (SSDP)"],
    ["http://255.255.255.255/h", "broadcast"],
    ["http://240.0.0.1/h", "reserved 240/4"],
    ["http://192.0.0.8/h", "IETF protocol assignments 192.0.0/24"],
    ["http://192.0.2.10/h", "documentation TEST-NET-1"],
    ["http://198.51.100.10/h", "documentation TEST-NET-2"],
    ["http://203.0.113.10/h", "documentation TEST-NET-3"],
    ["http://198.18.0.1/h", "benchmarking 198.18/15"],
    ["http://192.88.99.1/h", "6to4 relay anycast"],
    // the same addresses in the notations a URL parser accepts
    ["http://2130706433/h", "loopback as one decimal number"],
    ["http://0x7f000001/h", "loopback as one hex number"],
    ["http://017700000001/h", "loopback as one octal number"],
    ["http://0x7f.0.0.1/h", "loopback with a hex octet"],
    ["http://0177.0.0.1/h", "loopback with an octal octet"],
    ["http://127.1/h", "loopback, two-part form"],
    ["http://0/h", "zero: unspecified"],
    ["http://167772161/h", "10.0.0.1 as one decimal number"],
    ["http://0xa9fea9fe/h", "169.254.169.254 as one hex number"],
    ["http://①②⑦.0.0.1/h", "loopback in full-width digits"],
    ["http://10.0.0.1./h", "trailing dot"],
    // IPv6
    ["http://[::1]/h", "IPv6 loopback"],
    ["http://[::]/h", "IPv6 unspecified"],
    ["http://[fe80::1]/h", "IPv6 link-local"],
    ["http://[fc00::1]/h", "unique local fc00::/7"],
    ["http://[fd12:3456:789a::1]/h", "unique local fd00::/8"],
    ["http://[ff02::1]/h", "IPv6 multicast"],
    ["http://[fec0::1]/h", "deprecated site-local"],
    ["http://[2001:db8::1]/h", "IPv6 documentation"],
    ["http://[100::1]/h", "discard prefix"],
    ["http://[2001::1]/h", "Teredo"],
    ["http://[2002:7f00:1::1]/h", "6to4 embedding 127.0.0.1"],
    ["http://[64:ff9b::7f00:1]/h", "NAT64 embedding 127.0.0.1"],
    ["http://[::ffff:127.0.0.1]/h", "IPv4-mapped loopback"],
    ["http://[::ffff:7f00:1]/h", "IPv4-mapped loopback, hex form"],
    ["http://[0:0:0:0:0:ffff:a00:1]/h", "IPv4-mapped 10.0.0.1, long form"],
    ["http://[::ffff:169.254.169.254]/h", "IPv4-mapped metadata address"],
    ["http://[::127.0.0.1]/h", "IPv4-compatible loopback (::7f00:1)"],
    ["http://[::ffff:0:7f00:1]/h", "IPv4-translated loopback"],
    ["http://[4000::1]/h", "outside the global unicast block 2000::/3"],
  ])("%s (%s)", async (url) => {
    await expect(strict(url)).rejects.toBeInstanceOf(NonPublicAddressError);
  });
});

describe("names", () => {
  test.each(["http://localhost:8080/h", "http://api.localhost/h", "http://printer.local/h", "http://db.internal/h", "http://intranet/h"])(
    "%s is refused before DNS is asked",
    async (url) => {
      await expect(strict(url)).rejects.toBeInstanceOf(NonPublicAddressError);
    },
  );

  test("a public name that resolves to a private address is refused (DNS rebinding)", async () => {
    const err = await strict("https://shop.example.com/h", resolvesTo("93.184.216.34", "10.0.0.7")).catch((e) => e);
    expect(err).toBeInstanceOf(NonPublicAddressError);
    expect(err.message).toContain("10.0.0.7");
  });

  test.each(["::ffff:127.0.0.1", "::ffff:a9fe:a9fe", "fd00::1", "100.64.1.1"])("a name resolving to %s is refused", async (address) => {
    await expect(strict("https://shop.example.com/h", resolvesTo(address))).rejects.toBeInstanceOf(NonPublicAddressError);
  });
});

describe("public targets are pinned to the checked address", () => {
  test("https to a name: connect to the resolved IP, keep Host and the TLS server name", async () => {
    const target = await strict("https://Shop.Example.com:8443/hooks/pay?token=abc", resolvesTo("93.184.216.34"));
    expect(target).toEqual({
      connectUrl: "https://93.184.216.34:8443/hooks/pay?token=abc",
      hostHeader: "shop.example.com:8443",
      serverName: "shop.example.com",
      address: "93.184.216.34",
    });
  });

  test("an IPv6 answer is bracketed in the connect URL", async () => {
    const target = await strict("http://shop.example.com/h", resolvesTo("2606:4700:4700::1111"));
    expect(target.connectUrl).toBe("http://[2606:4700:4700::1111]/h");
    expect(target.hostHeader).toBe("shop.example.com");
    expect(target.serverName).toBeUndefined();
  });

  test("a public IP literal needs no DNS", async () => {
    expect((await strict("https://8.8.8.8/h")).connectUrl).toBe("https://8.8.8.8/h");
    expect((await strict("https://[::ffff:8.8.8.8]/h")).address).toBe("::ffff:808:808");
  });
});

describe("WEBHOOK_ALLOW_PRIVATE", () => {
  test("admits loopback and private names, still pinned", async () => {
    const target = await resolveTarget("http://localhost:4000/h", { allowPrivate: true, resolve: resolvesTo("127.0.0.1") });
    expect(target).toMatchObject({ connectUrl: "http://127.0.0.1:4000/h", hostHeader: "localhost:4000" });
    expect((await resolveTarget("http://10.0.0.1/h", { allowPrivate: true, resolve: noDns })).address).toBe("10.0.0.1");
  });
});

describe("unusable URLs", () => {
  test.each(["not a url", "ftp://shop.example.com/h", "file:///etc/passwd", "javascript:alert(1)"])("%s", async (url) => {
    await expect(resolveTarget(url, { allowPrivate: true, resolve: noDns })).rejects.toBeInstanceOf(InvalidWebhookUrlError);
  });

  test("a name without addresses", async () => {
    await expect(resolveTarget("http://shop.example.com/h", { allowPrivate: true, resolve: resolvesTo() })).rejects.toBeInstanceOf(InvalidWebhookUrlError);
  });
});

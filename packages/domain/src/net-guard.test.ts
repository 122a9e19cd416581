import { describe, expect, test } from "bun:test";
import { isPublicHostname, isPublicIp, NonPublicAddressError, resolvePublicAddresses } from "./net-guard.ts";

describe("isPublicIp", () => {
  test.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "2002:0a00:0001::1",
    "64:ff9b::a00:1",
    "not-an-ip",
  ])("%s is not public", (ip) => expect(isPublicIp(ip)).toBe(false));

  test.each(["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8", "[2606:4700:4700::1111]"])(
    "%s is public",
    (ip) => expect(isPublicIp(ip)).toBe(true),
  );
});

describe("isPublicHostname", () => {
  test.each(["localhost", "api.localhost", "printer.local", "db.internal", "router.home.arpa", "intranet", "[::1]", "10.0.0.5", ""])(
    "%s is not public",
    (h) => expect(isPublicHostname(h)).toBe(false),
  );
  test.each(["localhost..", "localhost...", "printer.local..", "foo.internal..", "shop.example.com..", "a..example.com", ".example.com", "."])(
    "%s has an empty label and is refused",
    (h) => expect(isPublicHostname(h)).toBe(false),
  );
  test.each(["shop.example.com", "example.com.", "8.8.8.8", "[2606:4700:4700::1111]"])("%s is public", (h) =>
    expect(isPublicHostname(h)).toBe(true),
  );
});

describe("resolvePublicAddresses", () => {
  test("refuses a public-looking name that resolves to a private address (DNS rebinding)", async () => {
    const resolver = async () => [{ address: "93.184.216.34" }, { address: "10.0.0.7" }];
    const err = await resolvePublicAddresses("shop.example.com", resolver).catch((e) => e);
    expect(err).toBeInstanceOf(NonPublicAddressError);
    expect(err.address).toBe("10.0.0.7");
  });

  test("returns every address when all are public", async () => {
    const resolver = async () => [{ address: "93.184.216.34" }, { address: "2606:4700:4700::1111" }];
    expect(await resolvePublicAddresses("shop.example.com", resolver)).toEqual(["93.184.216.34", "2606:4700:4700::1111"]);
  });

  test("refuses internal names before asking DNS", async () => {
    let asked = false;
    const resolver = async () => ((asked = true), [{ address: "8.8.8.8" }]);
    for (const name of ["localhost", "localhost..", "printer.local..", "foo.internal.."]) {
      await expect(resolvePublicAddresses(name, resolver)).rejects.toBeInstanceOf(NonPublicAddressError);
    }
    expect(asked).toBe(false);
  });

  test("a name with no addresses is refused", async () => {
    await expect(resolvePublicAddresses("shop.example.com", async () => [])).rejects.toBeInstanceOf(NonPublicAddressError);
  });

  test("an IP literal is judged without DNS", async () => {
    expect(await resolvePublicAddresses("8.8.8.8", async () => [])).toEqual(["8.8.8.8"]);
    await expect(resolvePublicAddresses("127.0.0.1")).rejects.toBeInstanceOf(NonPublicAddressError);
  });
});

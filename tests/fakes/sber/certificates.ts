import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** PEM files of a test's mutual TLS: a CA, the bank's server certificate (127.0.0.1) and the client certificate the bank issued. */
export type MtlsFiles = { dir: string; ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };

async function openssl(dir: string, ...args: string[]): Promise<void> {
  const p = Bun.spawn(["openssl", ...args], { cwd: dir, stdout: "ignore", stderr: "pipe" });
  if ((await p.exited) !== 0) throw new Error(`openssl ${args[0]} failed: ${await new Response(p.stderr).text()}`);
}

/** Made with Debian's openssl into a temporary folder, valid for a day. */
export async function mtlsFiles(): Promise<MtlsFiles> {
  const dir = mkdtempSync(join(tmpdir(), "fake-sber-tls-"));
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  await openssl(dir, "req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=fake-sber-ca");
  for (const [name, cn] of [["server", "127.0.0.1"], ["client", "payaccept"]] as const) {
    await openssl(dir, "req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`);
    await Bun.write(join(dir, `${name}.ext`), name === "server" ? "subjectAltName=IP:127.0.0.1\n" : "extendedKeyUsage=clientAuth\n");
    await openssl(dir, "x509", "-req", "-in", `${name}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.crt`, "-days", "1", "-extfile", `${name}.ext`);
  }
  const at = (f: string) => join(dir, f);
  return { dir, ca: at("ca.crt"), serverCert: at("server.crt"), serverKey: at("server.key"), clientCert: at("client.crt"), clientKey: at("client.key") };
}

export const pem = (path: string) => readFileSync(path, "utf8");

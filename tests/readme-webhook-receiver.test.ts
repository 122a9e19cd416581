import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../infra/launcher/services.ts";
import { eventually, freePort, Stack, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(60_000);

/** The README's "Receiving the demo shop's webhooks" shell block, as a reader would copy it. */
function readmeRecipe(): { receiver: string; commands: string[] } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.split("### Receiving the demo shop's webhooks")[1]!;
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const receiver = /<<'EOF'\n([\s\S]*?)\nEOF\n/.exec(block)![1]!;
  const commands = block.split("\n").filter((l) => l.startsWith("bun run admin"));
  return { receiver, commands };
}

let stack: Stack;
let receiver: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
let receiverFile: string | undefined;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "webhook-dispatcher"] });
}, STACK_START_MS);
afterAll(async () => {
  receiver?.kill();
  if (receiverFile) rmSync(receiverFile, { force: true });
  await stack.stop();
});

test("the README's receiver verifies the demo shop's test webhook with the SDK", async () => {
  const { receiver: code, commands } = readmeRecipe();
  expect(commands).toHaveLength(2);
  const demo = await stack.createShop({ name: "Demo shop", sandbox: true });
  const demoFile = join(stack.dataDir, "demo-shop.json");
  writeFileSync(demoFile, JSON.stringify(demo));
  const port = await freePort();
  // Inside the repository, so `@payaccept/sdk` resolves as it does for a reader at its root.
  const dir = join(ROOT, "tests/artifacts");
  mkdirSync(dir, { recursive: true });
  const file = (receiverFile = join(dir, `receiver-${port}.ts`));
  writeFileSync(file, code.replace(".data/demo-shop.json", demoFile).replace("port: 4000", `port: ${port}`));
  receiver = Bun.spawn(["bun", file], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let printed = "";
  void (async () => {
    for await (const chunk of receiver!.stdout) printed += new TextDecoder().decode(chunk);
  })();
  for (const line of commands) {
    const args = line
      .replace(/#.*$/, "")
      .trim()
      .replace("$SHOP", demo.shopId)
      .replace("127.0.0.1:4000", `127.0.0.1:${port}`)
      .split(/\s+/)
      .slice(3);
    // The receiver may still be starting: the test webhook is simply sent again until it answers.
    await eventually(async () => {
      const r = await stack.admin([...args, "--json"]);
      if (r.code !== 0) throw new Error(r.stdout + r.stderr);
      const result = JSON.parse(r.stdout);
      return result.httpStatus === undefined || result.httpStatus === 200;
    }, 20_000, 200);
  }
  await eventually(() => printed.includes("SUCCESS test-order (test)"), 10_000);
});

import { expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { commonEnv, parseConfig } from "./config.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const dataDir = (value?: string) => parseConfig({ DATA_DIR: commonEnv.DATA_DIR }, value === undefined ? {} : { DATA_DIR: value }).DATA_DIR;

test("a relative DATA_DIR is the repository's, whatever the working directory", () => {
  expect(dataDir()).toBe(join(ROOT, ".data"));
  expect(dataDir("./elsewhere")).toBe(join(ROOT, "elsewhere"));
  expect(dataDir("/var/lib/payaccept")).toBe("/var/lib/payaccept");
});

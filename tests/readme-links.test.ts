import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Glob } from "bun";
import { ROOT } from "../infra/launcher/services.ts";

/** Relative link targets of a markdown file: [text](target), without anchors; code blocks skipped. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => decodeURIComponent(target.split("#")[0]!));
}

const FILES = ["README.md", ...new Glob("docs/**/*.md").scanSync(ROOT)];

test("every relative link in README.md and docs/ points to a file in the repository", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of FILES) {
    for (const target of relativeLinks(readFileSync(join(ROOT, file), "utf8"))) {
      const path = resolve(ROOT, dirname(file), target);
      checked++;
      if (!path.startsWith(ROOT + "/") || !existsSync(path)) broken.push(`${file} → ${target}`);
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(20);
});

test("the README links the spec's copy inside the repository", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(relativeLinks(readme)).toContain("docs/spec/payment-acceptance-spec.md");
  expect(readme).not.toContain("../shared/");
});

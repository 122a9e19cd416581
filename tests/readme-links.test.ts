import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { Glob } from "bun";
import { ROOT } from "../infra/launcher/services.ts";

/** Relative link targets of a markdown file: [text](target), anchors kept; code blocks skipped. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of markdown.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = text!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What a reference may name in a markdown file, lower case without markup: its headings and its bold lead-ins (`**Term**`). */
function sectionsOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "");
  return [...prose.matchAll(/^#{1,6} +(.+?) *$/gm), ...prose.matchAll(/\*\*([^*\n]+)\*\*/g)].map(([, text]) => text!.replace(/`/g, "").toLowerCase());
}

const FILES = ["README.md", ...new Glob("docs/**/*.md").scanSync(ROOT), ...new Glob("packages/*/README.md").scanSync(ROOT), "infra/patches/README.md"];
const read = (file: string) => readFileSync(file, "utf8");

test("every relative link in the READMEs and docs/ points to a file in the repository, and to a heading of it", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of FILES) {
    for (const target of relativeLinks(read(join(ROOT, file)))) {
      const [pathPart, anchor] = target.split("#") as [string, string | undefined];
      const path = pathPart === "" ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(pathPart));
      checked++;
      if (!path.startsWith(ROOT + "/") || !existsSync(path)) broken.push(`${file} → ${target}`);
      else if (anchor !== undefined && path.endsWith(".md") && !anchorsOf(read(path)).has(decodeURIComponent(anchor))) broken.push(`${file} → ${target} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(20);
});

/**
 * Code, configs and docs name a section of a doc as `docs/<file>.md, "<words of its heading>"`
 * (also without the comma, and across a comment's line break; a bold lead-in counts as a
 * heading): each must name a file and a section that exist, so that moving a section moves its
 * references with it.
 */
test('every `docs/<file>.md, "Heading"` reference names a file of docs/ and a heading in it', () => {
  const sources = ["README.md", ...["packages", "services", "infra", "tests", "bench", "docs"].flatMap((dir) => [...new Glob(`${dir}/**/*.{ts,tsx,md,yaml,yml,json,lua}`).scanSync(ROOT)])].filter(
    (f) => !f.includes("node_modules/") && !f.includes("/drizzle"),
  );
  const broken: string[] = [];
  let checked = 0;
  for (const file of sources) {
    // A comment's line break (with its `*`, `//` or `#`) is a space, so a reference may wrap.
    const text = read(join(ROOT, file)).replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#(?!#))?\s*/g, " ");
    for (const [, doc, heading] of text.matchAll(/\bdocs\/([\w/-]+\.md),? +\\?"([^"\\]+)\\?"/g)) {
      checked++;
      const path = join(ROOT, "docs", doc!);
      if (!existsSync(path)) {
        broken.push(`${file}: docs/${doc} does not exist`);
        continue;
      }
      const wanted = heading!.replace(/`/g, "").toLowerCase();
      if (!sectionsOf(read(path)).some((h) => h.includes(wanted))) broken.push(`${file}: docs/${doc} has no heading "${heading}" (${relative(ROOT, path)})`);
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(20);
});

test("the README links the spec's copy inside the repository", () => {
  const readme = read(join(ROOT, "README.md"));
  expect(relativeLinks(readme)).toContain("docs/spec/payment-acceptance-spec.md");
  expect(readme).not.toContain("../shared/");
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = [fileURLToPath(new URL('../..', import.meta.url)), fileURLToPath(new URL('../../..', import.meta.url))].find((dir) =>
  existsSync(join(dir, 'docs', 'contracts.md')),
)!;
const SKIPPED = new Set(['node_modules', 'dist', '.git', '.nx', 'cdk.out', 'coverage']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks. */
function outsideFences(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** The text outside fenced code blocks and inline code: where a link is a link. */
function prose(text: string): string {
  return outsideFences(text).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a file's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of outsideFences(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor.toLowerCase())) broken.push(`${target}: no heading with that anchor`);
  }
  return broken.map((problem) => `${relative(ROOT, file)}: ${problem}`);
}

describe('the Markdown docs', () => {
  it('link only to files and headings that exist', () => {
    const files = markdownFiles(ROOT);
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it('name every public package where they list or count them', async () => {
    const { PUBLIC_PACKAGES } = (await import(join(ROOT, 'scripts/packages/public-packages.mjs'))) as { PUBLIC_PACKAGES: Array<{ name: string }> };
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const embedding = readFileSync(join(ROOT, 'docs/embedding.md'), 'utf8');
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    const count = words[PUBLIC_PACKAGES.length]!;
    for (const [name, text] of [
      ['README.md', readme],
      ['docs/embedding.md', embedding],
    ] as const) {
      for (const [, said] of text.matchAll(/\b(two|three|four|five|six|seven|eight|nine|ten) (?:public )?packages\b/gi))
        expect(said!.toLowerCase(), `${name} counts the packages`).toBe(count);
      for (const { name: pkg } of PUBLIC_PACKAGES) expect(text, `${name} names ${pkg}`).toContain(pkg);
    }
  });
});

import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** Every README a user reads: the project's and each package's. */
function readmes(): string[] {
  const inFolder = (folder: string) => readdirSync(join(ROOT, folder)).map((name) => join(ROOT, folder, name, 'README.md'));
  return [join(ROOT, 'README.md'), ...inFolder('libs'), ...inFolder('apps')].filter((path) => {
    try {
      return readFileSync(path, 'utf8').includes('```ts');
    } catch {
      return false;
    }
  });
}

interface Snippet {
  readme: string;
  line: number;
  code: string;
}

function snippets(readme: string): Snippet[] {
  const text = readFileSync(readme, 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => ({
    readme: relative(ROOT, readme),
    line: text.slice(0, match.index).split('\n').length,
    code: match[1]!,
  }));
}

/** The workspace's compiler settings, each snippet a module of its own, nothing emitted. */
const TSCONFIG = {
  extends: '../../../tsconfig.base.json',
  compilerOptions: { noEmit: true, composite: false, declaration: false, declarationMap: false, sourceMap: false, noUnusedLocals: false },
  include: ['*.ts'],
};

describe('README snippets', () => {
  it('type-check as written, imports included, against the workspace packages', async () => {
    // Inside the workspace, so that the packages resolve as an app's installed ones do.
    const dir = join(ROOT, 'node_modules', '.cache', 'readme-snippets');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const all = readmes().flatMap(snippets);
    const names = new Map<string, Snippet>();
    all.forEach((snippet, i) => {
      const name = `snippet-${i}.ts`;
      names.set(name, snippet);
      // `export {}` makes each a module, so their names do not collide.
      writeFileSync(join(dir, name), `${snippet.code}\nexport {};\n`);
    });
    // The compiler the workspace builds with (scripts/build.mjs).
    const tsc = join(ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc');
    const output = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir }).then(
      () => '',
      (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
    );
    const errors = output
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const match = /^(snippet-\d+\.ts)\((\d+),\d+\): (.*)$/.exec(line);
        if (!match) return line;
        const snippet = names.get(match[1]!)!;
        return `${snippet.readme}:${snippet.line + Number(match[2])}: ${match[3]}`;
      });
    expect(all.length).toBeGreaterThan(10);
    expect(errors).toEqual([]);
  }, 120_000);
});

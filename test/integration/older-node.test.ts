import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const run = promisify(execFile);

/** Node as an older one reports itself: a preload that makes this Node say it is 20.20.2. */
function pretendOlderNode(): string {
  const dir = mkdtempSync(join(tmpdir(), 'requeue-old-node-'));
  const preload = join(dir, 'pretend-20.mjs');
  writeFileSync(preload, "Object.defineProperty(process.versions, 'node', { value: '20.20.2' }); Object.defineProperty(process, 'version', { value: 'v20.20.2' });\n");
  return preload;
}

/** The machine's own older Node, when it has one (Debian's is 20): the real thing, not a pretence. */
function installedOlderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const [major = 0, minor = 0] = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim().split('.').map(Number);
      if (major < 22 || (major === 22 && minor < 12)) return candidate;
    } catch {
      // not installed here
    }
  }
  return undefined;
}

async function failure(file: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const outcome = await run(file, args, { env: { PATH: process.env.PATH, ...options.env }, cwd: options.cwd ?? root('.') }).then(
    () => ({ code: 0, stdout: '', stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr.trim() };
}

const oldNodes: Array<[string, string, string[]]> = [['a Node that reports 20.20.2', process.execPath, ['--import', pretendOlderNode()]]];
const installed = installedOlderNode();
if (installed) oldNodes.push([`the installed ${installed}`, installed, []]);

describe.each(oldNodes)('on an older Node (%s), requeue says what to do in one line', (_label, node, flags) => {
  it('the demo refuses before it imports anything: no stack trace, exit 1', async () => {
    const result = await failure(node, [...flags, root('apps/demo/dist/main.js'), '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^the demo needs Node >=22\.12 and this is v20\.\d+\.\d+: install Node 24 LTS/);
  });

  it('the requeue CLI refuses the same way: no stack trace, exit 1', async () => {
    const result = await failure(node, [...flags, root('apps/cli/dist/main.js'), 'dlq', 'list']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^requeue needs Node >=22\.12 and this is v20\.\d+\.\d+: install Node 24 LTS/);
  });

  it('the npm scripts and npm ci (preinstall) refuse with the same kind of line, naming .nvmrc', async () => {
    const result = await failure(node, [...flags, root('scripts/require-node.mjs')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^requeue needs Node >=22\.12 and this is v20\.\d+\.\d+: install Node 24 LTS \(\.nvmrc says 24/);
    expect(result.stderr.split('\n')).toHaveLength(1);
  });
});

describe('npm ci on an older Node', () => {
  it('fails at preinstall with the one line, even with npm kept silent', async () => {
    // A copy of the project's install surface: package.json, .npmrc (loglevel=silent) and the check.
    const project = mkdtempSync(join(tmpdir(), 'requeue-npm-ci-'));
    mkdirSync(join(project, 'scripts'));
    copyFileSync(root('scripts/require-node.mjs'), join(project, 'scripts/require-node.mjs'));
    copyFileSync(root('.npmrc'), join(project, '.npmrc'));
    const manifest = JSON.parse(readFileSync(root('package.json'), 'utf8')) as { engines: unknown; scripts: { preinstall: string } };
    const minimal = { name: 'requeue-install-check', version: '0.0.0', private: true, engines: manifest.engines, scripts: { preinstall: manifest.scripts.preinstall } };
    writeFileSync(join(project, 'package.json'), JSON.stringify(minimal));
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ name: minimal.name, version: '0.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: minimal.name, version: '0.0.0', engines: minimal.engines } } }));
    const result = await failure('npm', ['ci'], { cwd: project, env: { NODE_OPTIONS: `--import=${pretendOlderNode()}`, HOME: process.env.HOME } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/requeue needs Node >=22\.12 and this is v20\.20\.2/);
    expect(result.stdout).toBe('');
  });
});

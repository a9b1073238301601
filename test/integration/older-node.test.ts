import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { installedOlderNode } from '../support/older-node.js';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const run = promisify(execFile);

/** Node as an older one reports itself: a preload that makes this Node say it is 20.20.2. */
function pretendOlderNode(): string {
  const dir = mkdtempSync(join(tmpdir(), 'requeue-old-node-'));
  const preload = join(dir, 'pretend-20.mjs');
  writeFileSync(
    preload,
    "Object.defineProperty(process.versions, 'node', { value: '20.20.2' }); Object.defineProperty(process, 'version', { value: 'v20.20.2' });\n",
  );
  return preload;
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

  it('the npm scripts refuse with the same kind of line, naming .nvmrc', async () => {
    const result = await failure(node, [...flags, root('scripts/require-node.mjs')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^requeue needs Node >=22\.15 and this is v20\.\d+\.\d+: install Node 24 LTS \(\.nvmrc says 24/);
    expect(result.stderr.split('\n')).toHaveLength(1);
  });
});

describe('npm ci on an older Node', () => {
  it('refuses before it fetches anything, saying which Node it needs and which it found', async () => {
    // The project's install surface: package.json's engines, .npmrc, and a dependency whose
    // tarball nothing serves, so that a fetch would fail with another error than the refusal.
    const project = mkdtempSync(join(tmpdir(), 'requeue-npm-ci-'));
    copyFileSync(root('.npmrc'), join(project, '.npmrc'));
    const { engines } = JSON.parse(readFileSync(root('package.json'), 'utf8')) as { engines: { node: string } };
    const minimal = { name: 'requeue-install-check', version: '0.0.0', private: true, engines, dependencies: { 'left-pad': '1.3.0' } };
    writeFileSync(join(project, 'package.json'), JSON.stringify(minimal));
    const leftPad = {
      version: '1.3.0',
      resolved: 'http://127.0.0.1:1/left-pad-1.3.0.tgz',
      integrity: 'sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEhHrPJ+GNGHp+i7v2D9jTzK3ddYoBEQE8Q0k+1z4E6n8Ag==',
    };
    const lock = {
      name: minimal.name,
      version: '0.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { ...minimal, name: minimal.name }, 'node_modules/left-pad': leftPad },
    };
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lock));
    const startedAt = Date.now();
    const result = await failure('npm', ['ci'], { cwd: project, env: { NODE_OPTIONS: `--import=${pretendOlderNode()}`, HOME: process.env.HOME } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('npm error code EBADENGINE');
    expect(result.stderr).toContain(`Required: {"node":"${engines.node}"}`);
    expect(result.stderr).toContain('"node":"v20.20.2"');
    expect(existsSync(join(project, 'node_modules'))).toBe(false);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
  });
});

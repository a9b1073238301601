import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI_DIR = fileURLToPath(new URL('..', import.meta.url));
const { bin } = JSON.parse(readFileSync(join(CLI_DIR, 'package.json'), 'utf8')) as { bin: { requeue: string } };

describe('the requeue bin', () => {
  it('is a file in git, so that npm ci in a fresh clone links it before anything is built', () => {
    // --error-unmatch fails for a path git does not track, such as dist/.
    expect(() => execFileSync('git', ['ls-files', '--error-unmatch', bin.requeue], { cwd: CLI_DIR, stdio: 'pipe' })).not.toThrow();
  });

  it('is the bin the lockfile records, which is the one npm ci links', () => {
    const lock = JSON.parse(readFileSync(join(CLI_DIR, '..', '..', 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { bin?: Record<string, string> }>;
    };
    expect(lock.packages['apps/cli']?.bin?.requeue).toBe(bin.requeue.replace(/^\.\//, ''));
  });

  it('runs the built CLI', () => {
    const result = spawnSync(process.execPath, [join(CLI_DIR, bin.requeue), '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('usage: requeue <command>');
  });

  it('says to build first when there is no build', () => {
    const copy = mkdtempSync(join(tmpdir(), 'requeue-bin-'));
    mkdirSync(join(copy, 'bin'));
    copyFileSync(join(CLI_DIR, bin.requeue), join(copy, 'bin', 'requeue.mjs'));
    const result = spawnSync(process.execPath, [join(copy, 'bin', 'requeue.mjs'), 'dlq', 'list'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('requeue: the CLI is not built yet: run `npm run build` at the repository root, then run the command again.');
  });
});

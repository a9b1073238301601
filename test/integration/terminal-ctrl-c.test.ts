import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ensureDebianPackage } from '../support/debian-package.js';
import { eventually } from '../support/emulator.js';

const run = promisify(execFile);
const ROOT = [fileURLToPath(new URL('../..', import.meta.url)), fileURLToPath(new URL('../../..', import.meta.url))].find(
  (dir) => existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'apps')),
)!;

const tmux = (...args: string[]) => run('tmux', args).then(({ stdout }) => stdout);

/**
 * `npm start` in a real terminal (a tmux pane): Ctrl-C there signals the whole foreground
 * group, npm and the worker alike, and npm passes the signal on to the worker again.
 */
describe('Ctrl-C in a terminal', () => {
  it('one Ctrl-C on npm start drains and exits 0; npm adds nothing after it', async () => {
    ensureDebianPackage('tmux', '/usr/bin/tmux', 'the Ctrl-C test');
    const dir = mkdtempSync(join(tmpdir(), 'requeue-ctrl-c-'));
    const session = `requeue-ctrl-c-${process.pid}`;
    const exitFile = join(dir, 'exit');
    // Any free ports, no dashboard: nothing of another test's is in the way.
    const env = `PATH=${dirname(process.execPath)}:$PATH WORKER_EMULATOR_PORT=0 WORKER_HEALTH_PORT=0 WORKER_DASHBOARD=off WORKER_WAIT_TIME_SECONDS=1`;
    await tmux('new-session', '-d', '-s', session, '-x', '220', '-y', '60', `cd ${ROOT} && ${env} npm start; echo $? > ${exitFile}; sleep 60`);
    try {
      await eventually(async () => ((await tmux('capture-pane', '-p', '-t', session)).includes('health on') ? true : undefined), 60_000, 'the worker to start');
      await tmux('send-keys', '-t', session, 'C-c');
      const code = await eventually(() => (existsSync(exitFile) ? readFileSync(exitFile, 'utf8').trim() : undefined), 30_000, 'npm start to exit');
      const pane = await tmux('capture-pane', '-p', '-S', '-200', '-t', session);
      expect(pane).toContain('SIGINT: stopping');
      expect(pane).not.toContain('second signal');
      expect(pane).not.toMatch(/"error"|npm error/);
      expect(code, pane).toBe('0');
    } finally {
      await tmux('kill-session', '-t', session).catch(() => undefined);
    }
  }, 120_000);
});

import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type QueuePair } from '../support/emulator.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** npm as a person's shell runs it: this Node first on PATH, and none of the npm settings the running suite inherited. */
async function npm(args: string[], env: Record<string, string> = {}) {
  const options = { cwd: root, env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: process.env.HOME ?? '/root', ...env } };
  return run('npm', args, options).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('npm scripts say what the project says, and npm adds nothing after a failure', () => {
  let emulator: Emulator;
  let queues: QueuePair;
  beforeAll(async () => {
    emulator = await startEmulator();
    queues = await emulator.createQueues();
  });
  afterAll(() => emulator.stop());

  it("a script that fails with the project's error prints that one line on stderr, and no npm error lines or JSON", async () => {
    const result = await npm(['run', 'dlq', '--', 'list'], { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'us-east-1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^requeue: nothing answers at http:\/\/127\.0\.0\.1:9/);
    expect(result.stdout).not.toContain('{');
    expect(result.stdout + result.stderr).not.toMatch(/npm error|ERR!/);
  }, 60_000);

  it('`npm run -s … -- --json` prints the document alone on stdout', async () => {
    const env = { AWS_ENDPOINT_URL: emulator.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };
    const result = await npm(['run', '-s', 'dlq', '--', 'list', '--json', '--dlq', queues.dlqUrl], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const CLI = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);

/**
 * Runs the built `requeue dlq ...` on a DLQ of the emulator at `endpoint`; resolves with
 * stdout, stderr and the exit code, whatever the code.
 */
export async function runDlqCli(endpoint: string, dlqUrl: string, args: readonly string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'dlq', ...args, '--dlq', dlqUrl], {
      env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE, AWS_ENDPOINT_URL: endpoint, AWS_REGION: 'us-east-1', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

import { spawn } from 'node:child_process';

/** A command that failed: what ran, where, and the end of what it printed. */
export class CheckError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'CheckError';
  }
}

/**
 * Runs a command to completion and returns its output; throws a CheckError with the last
 * lines of output when it exits non-zero, so a failing step says what went wrong.
 */
export function run(command, args, { cwd, env = process.env, allowFailure = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || allowFailure) return resolve({ code, output });
      const tail = output.trim().split('\n').slice(-40).join('\n');
      reject(new CheckError(`\`${command} ${args.join(' ')}\` in ${cwd ?? process.cwd()} exited ${code}:\n${tail}`));
    });
  });
}

/** npm, quiet unless it fails. */
export function npm(args, options) {
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], options);
}

/** Polls `check` until it returns a value, or throws after `timeoutMs` with `what` in the message. */
export async function waitFor(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new CheckError(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

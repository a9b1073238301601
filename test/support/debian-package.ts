import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Installs a Debian package with apt when `binary` is missing: real components start in
 * the tests themselves, and setting them up is the test setup's job, not the user's.
 */
export function ensureDebianPackage(name: string, binary: string, neededBy: string): void {
  if (existsSync(binary)) return;
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  try {
    // apt's progress goes to stderr: a caller's stdout may be a document (`npm run bench -- --json`).
    execSync(`${sudo}apt-get update -qq && ${sudo}env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${name}`, {
      stdio: ['ignore', 2, 2],
      timeout: 280_000,
    });
  } catch (cause) {
    throw new Error(`could not install ${name} with apt (needed by ${neededBy}): ${(cause as Error).message}`, { cause });
  }
  if (!existsSync(binary)) throw new Error(`apt installed ${name}, but ${binary} is missing`);
}

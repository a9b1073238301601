import { execFileSync } from 'node:child_process';

/** The machine's own Node older than 22.12, when it has one (Debian's is 20): the real thing, not a pretence. */
export function installedOlderNode(): string | undefined {
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

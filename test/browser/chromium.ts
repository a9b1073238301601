import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's chromium: `npx playwright install` cannot download browsers on these machines. */
export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  // Quiet and offline: no update checks, sync or first-run work in a test browser.
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Installs Debian's chromium with apt when it is missing (the test setup's job, not the user's). */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  try {
    execSync(`${sudo}apt-get update -qq && ${sudo}env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium`, { stdio: 'inherit', timeout: 280_000 });
  } catch (cause) {
    throw new Error(`could not install chromium with apt (needed by the browser test): ${(cause as Error).message}`, { cause });
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt installed chromium, but ${CHROMIUM} is missing`);
}

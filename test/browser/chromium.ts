import { ensureDebianPackage } from '../support/debian-package.js';

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

/** Installs Debian's chromium with apt when it is missing. */
export function ensureChromium(): void {
  ensureDebianPackage('chromium', CHROMIUM, 'the browser test');
}

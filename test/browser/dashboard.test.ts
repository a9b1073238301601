import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { freePort } from '../support/worker-process.js';
import { CHROMIUM, CHROMIUM_FLAGS, ensureChromium } from './chromium.js';

const DEMO = fileURLToPath(new URL('../../apps/demo/dist/main.js', import.meta.url));
const CLI = fileURLToPath(new URL('../../apps/cli/bin/requeue.mjs', import.meta.url));
const SCREENSHOT = fileURLToPath(new URL('../../docs/dashboard.png', import.meta.url));

let browser: Browser;
let demo: ChildProcess;
/** Takes the demo worker's OTLP exports, so its retries have traces to link to. */
let collector: Server;
let stderr = '';
let stdout = '';

beforeAll(async () => {
  ensureChromium();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  collector = createServer((request, response) => request.resume().on('end', () => response.writeHead(200).end()));
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
}, 300_000);

afterAll(async () => {
  if (demo && demo.exitCode === null) {
    const exited = new Promise((resolve) => demo.once('exit', resolve));
    demo.kill('SIGINT');
    await exited;
  }
  await browser?.close();
  collector?.close();
});

describe('the local dashboard in a real browser', () => {
  it('shows the counters moving during a demo run, and replay takes a message out of the DLQ', async () => {
    const port = await freePort();
    demo = spawn(process.execPath, [DEMO, '--dashboard', '--dashboard-port', String(port), '--publish-delay', '4s'], {
      env: {
        PATH: process.env.PATH,
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        WORKER_TRACE_URL: 'http://traces.example/trace/{traceId}',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    demo.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    demo.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const url = await eventually(() => /dashboard: (\S+)/.exec(stderr)?.[1], 30_000, 'the dashboard URL');
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#token=[0-9a-f]{32}$`));

    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.goto(url);
    const processed = async () => Number(await page.locator('#processed').textContent());
    expect(await processed()).toBe(0);
    // The counters move as the demo's messages are handled.
    await eventually(async () => ((await processed()) > 0 ? true : undefined), 30_000, 'processed to rise');
    // The demo's transient failures wait to retry: the page lists them, with their error.
    await eventually(async () => ((await page.locator('#retries tr[data-message-id]').count()) > 0 ? true : undefined), 30_000, 'a retry waiting');
    expect(await page.locator('#retries').textContent()).toMatch(/TEMPORARY|RATE_LIMIT|QUOTA_EXCEEDED/);
    // Each retry links to the trace its attempts share.
    const traceLink = page.locator('#retries tr[data-message-id] a.trace').first();
    expect(await traceLink.getAttribute('href')).toMatch(/^http:\/\/traces\.example\/trace\/[0-9a-f]{32}$/);
    expect(await traceLink.textContent()).toMatch(/^[0-9a-f]{32}$/);
    await eventually(async () => ((await processed()) >= 28 ? true : undefined), 30_000, 'every success counted').catch((error: Error) => {
      // Say where the demo stood: its progress lines and report.
      throw new Error(
        `${error.message} (the page shows ${stdout ? 'the report below' : 'no report yet'})\n--- demo stderr ---\n${stderr.slice(-3000)}\n--- demo stdout ---\n${stdout.slice(-3000)}`,
        { cause: error },
      );
    });
    await eventually(async () => ((await page.locator('#dlq').textContent()) === '12' ? true : undefined), 30_000, 'the DLQ tile at 12');
    await expect.poll(() => page.locator('#dead-letters tr[data-message-id]').count(), { timeout: 15_000 }).toBe(12);
    await expect.poll(() => page.locator('#activity canvas').count()).toBeGreaterThan(0);

    // Taken on every run, so the picture in the docs is always of the page as it is.
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // The report's hint works as printed while the demo holds its stack up.
    const listCommand = await eventually(() => /npx requeue dlq list --dlq (\S+)/.exec(stdout)?.[1], 30_000, "the report's dlq hint");

    // The page counts retries and deferrals by error type as the report does.
    const reported = (label: string) =>
      Object.fromEntries(
        [...(new RegExp(`${label}[^:]*: \\d+ \\(([^)]*)\\)`).exec(stdout)?.[1] ?? '').matchAll(/([A-Z_]+) (\d+)/g)].map((m) => [m[1]!, Number(m[2])]),
      );
    const shown = async (column: 'retries' | 'deferrals') =>
      Object.fromEntries(
        (
          await page
            .locator('#by-type tr[data-type]')
            .evaluateAll((rows, name) => rows.map((row) => [row.getAttribute('data-type'), Number(row.querySelector(`.${name}`)!.textContent)]), column)
        ).filter(([, count]) => count !== 0),
      );
    expect(Object.keys(reported('retries')).length).toBeGreaterThan(0);
    await expect.poll(() => shown('retries')).toEqual(reported('retries'));
    expect(await shown('deferrals')).toEqual(reported('deferrals'));
    const listed = await promisify(execFile)(process.execPath, [CLI, 'dlq', 'list', '--json', '--dlq', listCommand], { env: { PATH: process.env.PATH } });
    expect(JSON.parse(listed.stdout)).toHaveLength(12);
    // The page groups the DLQ by cause as triage does: the same groups, counts and ids.
    const triaged = await promisify(execFile)(process.execPath, [CLI, 'dlq', 'triage', '--json', '--dlq', listCommand], { env: { PATH: process.env.PATH } });
    const byCause = (JSON.parse(triaged.stdout) as { groups: Array<{ id: string; count: number }> }).groups.map((g) => `${g.id} ${g.count}`);
    expect(byCause.length).toBeGreaterThan(0);
    await expect
      .poll(
        () =>
          page
            .locator('#dead-letter-groups tr[data-group]')
            .evaluateAll((rows) => rows.map((row) => `${row.children[0]!.textContent} ${row.children[1]!.textContent}`)),
        { timeout: 15_000 },
      )
      .toEqual(byCause);

    // Replay a permanent failure: it leaves the DLQ (and, still failing, comes back as a new message).
    const row = page.locator('#dead-letters tr[data-message-id]', { hasText: 'permanent-1' });
    const messageId = await row.getAttribute('data-message-id');
    await row.locator('button[data-action="replay"]').click();
    await expect.poll(() => page.locator(`#dead-letters tr[data-message-id="${messageId}"]`).count(), { timeout: 15_000 }).toBe(0);
    // The worker handles the replayed message again; still failing, it returns under a new id.
    await expect
      .poll(
        async () =>
          (await page
            .locator('#dead-letters tr[data-message-id]', { hasText: 'permanent-1' })
            .getAttribute('data-message-id')
            .catch(() => null)) ?? messageId,
        { timeout: 20_000 },
      )
      .not.toBe(messageId);

    // Without the token, the API refuses to change anything.
    const refused = await page.evaluate(async (id) => (await fetch(`/api/dead-letters/${id}/discard`, { method: 'POST' })).status, messageId);
    expect(refused).toBe(403);
    await page.close();
  }, 180_000);
});

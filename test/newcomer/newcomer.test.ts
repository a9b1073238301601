import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDebianPackage } from '../support/debian-package.js';
import { eventually } from '../support/emulator.js';
import { installedOlderNode } from '../support/older-node.js';
import { readmeCommands, shell, startShell, type Shell } from './newcomer-shell.js';

const SOURCE = fileURLToPath(new URL('../..', import.meta.url));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** A fresh clone of this working tree: its commit, plus the uncommitted changes to tracked files. */
function cloneWorkingTree(): string {
  const clone = join(mkdtempSync(join(tmpdir(), 'requeue-newcomer-')), 'requeue');
  execFileSync('git', ['clone', '--quiet', SOURCE, clone]);
  const changes = execFileSync('git', ['diff', 'HEAD', '--binary'], { cwd: SOURCE, maxBuffer: 64 * 1024 * 1024 });
  if (changes.length > 0) execFileSync('git', ['apply', '--whitespace=nowarn'], { cwd: clone, input: changes });
  return clone;
}

/**
 * A newcomer's environment: this machine's (its HOME, npm's cache, certificates), with the
 * given Node first on PATH, and nothing this run set: no AWS or worker settings, no npm
 * script variables, no test runner's.
 */
function newcomerEnv(nodeDir: string): NodeJS.ProcessEnv {
  const path = [nodeDir, ...(process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== nodeDir)].join(delimiter);
  const inherited = Object.entries(process.env).filter(([name]) => !/^(AWS_|WORKER_|npm_|VITEST|NODE_OPTIONS$|NODE_ENV$|CI$)/i.test(name));
  return { ...Object.fromEntries(inherited), PATH: path };
}

const commands = readmeCommands(readFileSync(join(SOURCE, 'README.md'), 'utf8'));
const installAndDemo = commands.find((line) => line.startsWith('npm ci'))!;
const node24 = newcomerEnv(dirname(process.execPath));
let clone: string;

beforeAll(() => {
  clone = cloneWorkingTree();
});

describe('a newcomer walks the README on a fresh clone', () => {
  it('the README starts with `npm ci && npm run demo` and `npm test`', () => {
    expect(installAndDemo).toBe('npm ci && npm run demo');
    expect(commands).toContain('npm test');
  });

  const older = installedOlderNode();
  it.runIf(older)(
    `on the machine's older Node (${older ?? 'none'}), \`npm ci\` refuses at once, saying which Node it needs`,
    async () => {
      const started = Date.now();
      const result = await shell('npm ci', { cwd: clone, env: newcomerEnv(dirname(older!)) });
      const seconds = (Date.now() - started) / 1000;
      console.info(`npm ci on ${older}: exit ${result.code} in ${seconds.toFixed(1)} s`);
      expect(result.code).not.toBe(0);
      expect(result.stdout + result.stderr).toMatch(/EBADENGINE[\s\S]*>=22\.15/);
      // Before any download: npm reads the engines first, and nothing is installed.
      expect(existsSync(join(clone, 'node_modules', '.package-lock.json'))).toBe(false);
      expect(seconds).toBeLessThan(30);
    },
    60_000,
  );

  it('on Node 24, `npm ci && npm run demo` installs, builds and accounts for every message, pairing SNS and SQS ids', async () => {
    const [install, demo] = installAndDemo.split(' && ') as [string, string];
    const installed = await shell(install, { cwd: clone, env: node24 });
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    const started = Date.now();
    const result = await shell(demo, { cwd: clone, env: node24 });
    console.info(`first \`${demo}\` after \`${install}\`, build included: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(/published 40, succeeded \d+, dead-lettered 12, lost 0/);
    expect(result.stdout).toMatch(new RegExp(`transient-2 +\\(transient\\) +SNS ${UUID.source} → SQS ${UUID.source}`));
    // The closing hint names a command that exists.
    expect(result.stdout).toContain('`npm run demo -- --dashboard` keeps it up');
  }, 300_000);

  it('`npx requeue dlq list` with nothing running says in one line to start the stack', async () => {
    const result = await shell('npx requeue dlq list', { cwd: clone, env: node24 });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/nothing answers at http:\/\/127\.0\.0\.1:4566: is `npm start`/);
  }, 60_000);
});

describe('`npm start` as the README and its banner say', () => {
  let npm: Shell;

  beforeAll(async () => {
    // The npm process itself, as a terminal's Ctrl-C reaches it.
    npm = startShell('npm', ['start'], { cwd: clone, env: node24 });
    await eventually(() => (npm.output().includes('DLQ ') && npm.output().includes('sns publish')) || undefined, 120_000, 'the banner');
  }, 150_000);

  afterAll(async () => {
    if (npm.child.exitCode === null) npm.child.kill('SIGKILL');
  });

  const banner = () => {
    const publish = /^ {2}(AWS_ACCESS_KEY_ID=\S+ AWS_SECRET_ACCESS_KEY=\S+ aws .*\\\n.*)$/m.exec(npm.output())?.[1];
    const dlqUrl = /^ {2}DLQ +(\S+)$/m.exec(npm.output())?.[1];
    return { publish: publish!, dlqUrl: dlqUrl! };
  };

  it("the banner's publish command works as pasted, and the worker logs that message's retry and success", async () => {
    if (!/aws/.test(await shell('command -v aws', { env: node24 }).then((r) => r.stdout))) ensureDebianPackage('awscli', '/usr/bin/aws', 'the newcomer test');
    const published = await shell(banner().publish.replace('\\\n', ' '), { cwd: clone, env: node24 });
    expect(published.code, published.stderr).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ MessageId: expect.stringMatching(UUID) });
    const done = await eventually(
      () => /"originalMessageId":"([^"]+)","attempt":2,"msg":"done on attempt 2"/.exec(npm.output())?.[1],
      30_000,
      'the retried success',
    );
    expect(npm.output()).toMatch(new RegExp(`"originalMessageId":"${done}","attempt":1,"errorType":"TEMPORARY".*"msg":"handler failed; retrying"`));
  }, 120_000);

  it('`npx requeue dlq list` finds the local stack, alone and with the DLQ URL the banner prints', async () => {
    const permanent = banner()
      .publish.replace('\\\n', ' ')
      .replace(/--message '.*'$/, `--message '{"id":"broken","simulate":{"outcome":"permanent"}}'`);
    expect((await shell(permanent, { cwd: clone, env: node24 })).code).toBe(0);
    const listed = await eventually(
      async () => {
        const result = await shell('npx requeue dlq list --json', { cwd: clone, env: node24 });
        return result.code === 0 && result.stdout.includes('broken') ? result : undefined;
      },
      30_000,
      'the dead letter',
    );
    const [letter] = JSON.parse(listed.stdout) as Array<{ reason: string; body: string }>;
    expect(letter).toMatchObject({ reason: 'non-retryable' });
    const byUrl = await shell(`npx requeue dlq list --dlq ${banner().dlqUrl}`, { cwd: clone, env: node24 });
    expect(byUrl.code, byUrl.stderr).toBe(0);
    expect(byUrl.stdout).toContain('non-retryable');
  }, 120_000);

  it("Ctrl-C to npm's own process stops the worker, saying what the stop waits for", async () => {
    const exited = new Promise<number | null>((resolve) => npm.child.once('exit', resolve));
    npm.child.kill('SIGINT');
    await eventually(() => npm.output().includes('SIGINT: stopping') || undefined, 5_000, 'the stop line');
    // Open long polls return within WORKER_WAIT_TIME_SECONDS (20 s).
    expect(await exited).toBe(0);
    expect(npm.output()).toContain('worker stopped');
  }, 60_000);
});

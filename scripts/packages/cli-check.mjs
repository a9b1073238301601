import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installApp } from './scratch.mjs';
import { CheckError, run } from './run.mjs';

/** `npx requeue dlq list` from the CLI tarball, installed alone, against the DLQ the Nest app filled. */
export async function checkCli(scratchRoot, tarballs, dlqUrl) {
  const appDir = join(scratchRoot, 'ops');
  await mkdir(appDir, { recursive: true });
  await writeFile(join(appDir, 'package.json'), `${JSON.stringify({ name: 'ops', private: true, dependencies: { '@requeue/cli': '^0.1.0' } }, null, 2)}\n`);
  await installApp(appDir, tarballs);
  const { output } = await run('npx', ['requeue', 'dlq', 'list', '--dlq', dlqUrl], { cwd: appDir, env: { PATH: process.env.PATH } });
  for (const expected of ['order-3', 'VALIDATION', 'order-4', 'non-retryable', '2 message(s)']) {
    if (!output.includes(expected)) throw new CheckError(`\`requeue dlq list\` did not show ${expected}:\n${output}`);
  }
  return output.trim();
}

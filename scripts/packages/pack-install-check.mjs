import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packAll, tarballsFor } from '../pack-packages.mjs';
import { CheckError, npm, run } from './run.mjs';

/**
 * The README's install path without a registry: `npm run pack`'s folder, and the one
 * install line it prints for @requeue/sqs, in an empty app; the package then loads.
 */
export async function checkInstallFromPack(scratch) {
  const packed = await packAll(join(scratch, 'from-pack'));
  const appDir = join(scratch, 'from-pack-app');
  await mkdir(appDir, { recursive: true });
  await writeFile(join(appDir, 'package.json'), `${JSON.stringify({ name: 'from-pack-app', private: true, type: 'module' }, null, 2)}\n`);
  await npm(['install', '--prefer-offline', ...tarballsFor('@requeue/sqs', packed)], { cwd: appDir });
  const { output } = await run(process.execPath, ['--input-type=module', '-e', "const sqs = await import('@requeue/sqs'); console.log(typeof sqs.SqsWorker)"], {
    cwd: appDir,
  });
  if (output.trim() !== 'function') throw new CheckError(`@requeue/sqs installed from the pack folder did not load: ${output}`);
  return 'installed with @requeue/retry and its peers, and SqsWorker loads';
}

#!/usr/bin/env node
// npm run api:update: regenerate every public package's API report (libs/*/etc/*.api.md)
// after a deliberate change to what it exports. test:packages fails while one is stale.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PUBLIC_PACKAGES } from './packages/public-packages.mjs';
import { run } from './packages/run.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const local = process.argv.includes('--update') ? ['--local'] : [];
for (const pkg of PUBLIC_PACKAGES) {
  for (const config of pkg.apiReports) {
    await run('npx', ['api-extractor', 'run', ...local, '-c', join(root, pkg.dir, config)], { cwd: root });
    process.stdout.write(`${pkg.name}: ${join(pkg.dir, 'etc')} ${local.length ? 'updated' : 'matches'}\n`);
  }
}

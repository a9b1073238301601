#!/usr/bin/env node
// The `requeue` bin. It exists before any build, so that `npm ci` in a clone of the
// repository links it as it does from the published package, where dist/ is built.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('requeue: the CLI is not built yet: run `npm run build` at the repository root, then run the command again.\n');
  process.exit(1);
}
await import(main.href);

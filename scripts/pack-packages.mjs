#!/usr/bin/env node
// npm run pack: builds every public package and packs each into one folder (dist/packages,
// or --out <dir>), then prints, per package, the one `npm install` line that installs it
// from there with the requeue packages it depends on. requeue's packages pin each other
// exactly, so every tarball an app needs goes into the same `npm install`.
import { mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PUBLIC_PACKAGES } from './packages/public-packages.mjs';
import { CheckError, npm, run } from './packages/run.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Packs every public package into `destination`; resolves with each one's name, tarball path and requeue dependencies. */
export async function packAll(destination) {
  await run(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root });
  await mkdir(destination, { recursive: true });
  const packed = [];
  for (const pkg of PUBLIC_PACKAGES) {
    const dir = join(root, pkg.dir);
    const { output } = await npm(['pack', '--json', '--pack-destination', destination], { cwd: dir });
    const [result] = JSON.parse(output.slice(output.indexOf('[')));
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    const requeueDeps = Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@requeue/'));
    packed.push({ name: pkg.name, tarball: join(destination, result.filename), requeueDeps });
  }
  return packed;
}

/** The tarballs one package needs: its own and, transitively, those of the requeue packages it depends on. */
export function tarballsFor(name, packed) {
  const byName = new Map(packed.map((p) => [p.name, p]));
  const needed = new Set();
  const visit = (current) => {
    if (needed.has(current)) return;
    const entry = byName.get(current);
    if (!entry) throw new CheckError(`${current} is not a public package`);
    needed.add(current);
    entry.requeueDeps.forEach(visit);
  };
  visit(name);
  return [...needed].map((n) => byName.get(n).tarball);
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const destination = values.out ? (isAbsolute(values.out) ? values.out : resolve(process.cwd(), values.out)) : join(root, 'dist', 'packages');
  const packed = await packAll(destination);
  process.stdout.write(`${packed.length} packages in ${destination}\n\nInstall one into your app (from its folder), with the requeue packages it needs:\n`);
  for (const { name } of packed) {
    process.stdout.write(`  ${name.padEnd(18)} npm install ${tarballsFor(name, packed).join(' ')}\n`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`pack failed: ${error instanceof CheckError ? error.message : (error.stack ?? error)}\n`);
    process.exit(1);
  });
}

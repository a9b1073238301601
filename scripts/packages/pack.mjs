import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckError, npm, run } from './run.mjs';

/**
 * Packs one public package into `destination` after the packaging checks: its API report
 * matches (api-extractor), its manifest and files are right (publint), its types resolve
 * for ESM consumers (attw). Returns the tarball's path and what is in it.
 */
export async function packPackage(root, pkg, destination) {
  const dir = join(root, pkg.dir);
  for (const config of pkg.apiReports) {
    await run('npx', ['api-extractor', 'run', '-c', join(dir, config)], { cwd: root }).catch((cause) => {
      throw new CheckError(`${pkg.name}: its public API changed; review it and run \`npm run api:update\` to commit the new report`, { cause });
    });
  }
  await checkReportsDocumented(pkg, dir);
  await run('npx', ['publint', '--strict', dir], { cwd: root });
  await mkdir(destination, { recursive: true });
  const { output } = await npm(['pack', '--json', '--pack-destination', destination], { cwd: dir });
  const [packed] = JSON.parse(output.slice(output.indexOf('[')));
  const tarball = join(destination, packed.filename);
  await run('npx', ['attw', tarball, '--profile', 'esm-only', '--format', 'table-flipped'], { cwd: root });
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  await checkContents(
    pkg,
    manifest,
    packed.files.map((file) => file.path),
    dir,
  );
  return { name: pkg.name, tarball, size: packed.size, unpackedSize: packed.unpackedSize, files: packed.files.length };
}

/**
 * Every exported member says what it is for, and every type a public signature uses is
 * exported by the package: by the same entry point, or by another of its entry points (a
 * subpath's options may use the root's types; a fleet store writer's types live in its
 * subpath), so no entry re-exports another's types only to satisfy the report. An API
 * report with "(undocumented)", or a forgotten export no entry of the package exports,
 * fails.
 */
async function checkReportsDocumented(pkg, dir) {
  if (pkg.apiReports.length === 0) return;
  const reports = (await readdir(join(dir, 'etc'))).filter((name) => name.endsWith('.api.md'));
  const texts = new Map(await Promise.all(reports.map(async (report) => [report, await readFile(join(dir, 'etc', report), 'utf8')])));
  const exported = new Set([...texts.values()].flatMap((text) => [...text.matchAll(EXPORTED_NAME)].map((match) => match[1])));
  for (const [report, text] of texts) {
    const undocumented = text.split('(undocumented)').length - 1;
    const forgotten = [...text.matchAll(FORGOTTEN_NAME)].map((match) => match[1]).filter((name) => !exported.has(name));
    if (undocumented + forgotten.length > 0) {
      throw new CheckError(
        `${pkg.name}: etc/${report} has ${undocumented} undocumented member(s) and ${forgotten.length} type(s) no entry exports (${forgotten.join(', ') || 'none'}); document them (TSDoc) or export the types, then run \`npm run api:update\``,
      );
    }
  }
}

const EXPORTED_NAME = /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum|namespace) (\w+)/gm;
const FORGOTTEN_NAME = /ae-forgotten-export\) The symbol "(\w+)" needs to be exported/g;

/**
 * What `npm pack` put in the tarball: every export and bin target is there, and every bare
 * import in the shipped JavaScript is a declared dependency or peer. Hoisting in a user's
 * node_modules could hide a missing one until the day it does not.
 */
export async function checkContents(pkg, manifest, files, dir) {
  const shipped = new Set(files);
  const targets = [
    ...Object.values(manifest.exports ?? {}).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry))),
    ...Object.values(manifest.bin ?? {}),
  ];
  for (const target of targets) {
    const path = target.replace(/^\.\//, '');
    if (!shipped.has(path))
      throw new CheckError(`${pkg.name}: the tarball lacks ${path}, which package.json points to (exports or bin); is dist/ built and listed in "files"?`);
  }
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const source = await readFile(join(dir, file), 'utf8');
    for (const match of source.matchAll(
      /^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm,
    )) {
      const name = packageName(match[1] ?? match[2] ?? match[3]);
      if (name && !declared.has(name))
        throw new CheckError(`${pkg.name}: ${file} imports ${name}, which package.json does not declare in dependencies or peerDependencies`);
    }
  }
}

/** The package a bare specifier names; undefined for relative paths and node: built-ins. */
function packageName(specifier) {
  if (!specifier || specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

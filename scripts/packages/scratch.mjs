import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { npm } from './run.mjs';

/**
 * Copies an example app into `scratchRoot` (outside the workspace) and installs it as a user
 * would: its peers and tools from the registry, requeue's packages from the tarballs. A
 * tarball stands in for the registry through `overrides`, also for the requeue packages
 * the app only gets transitively, so nothing resolves to the workspace.
 */
export async function installExample(exampleDir, scratchRoot, tarballs) {
  const appDir = join(scratchRoot, exampleDir.split('/').pop());
  await cp(exampleDir, appDir, { recursive: true, filter: (path) => !/\/(node_modules|dist|cdk\.out)(\/|$)/.test(path) });
  await installApp(appDir, tarballs);
  return appDir;
}

/** Installs the app in `appDir`, with requeue's packages taken from the tarballs. */
export async function installApp(appDir, tarballs) {
  const manifestPath = join(appDir, 'package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  const fromTarball = Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.tarball}`]));
  for (const field of ['dependencies', 'devDependencies']) {
    for (const name of Object.keys(manifest[field] ?? {})) {
      if (fromTarball[name]) manifest[field][name] = fromTarball[name];
    }
  }
  manifest.overrides = fromTarball;
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  // --prefer-offline: the workspace's own install has already cached these versions.
  await npm(['install', '--prefer-offline', '--install-links'], { cwd: appDir });
}

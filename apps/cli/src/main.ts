#!/usr/bin/env node
// The `requeue` bin. Nothing is imported before the Node check, so an older Node prints
// what to do instead of a syntax error or a stack trace from a dependency.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `requeue needs Node >=22.12 and this is ${process.version}: install Node 24 LTS (with nvm: nvm install 24), then run the command again.\n`,
  );
  process.exit(1);
}
await import('./cli.js');

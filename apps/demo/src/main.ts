#!/usr/bin/env node
// `npm run demo`. Nothing is imported before the Node check: the embedded emulator needs
// a built-in module (node:sqlite) older Nodes lack, and the user should read what to do.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`the demo needs Node >=22.12 and this is ${process.version}: install Node 24 LTS (with nvm: nvm install 24), then run it again.\n`);
  process.exit(1);
}
const { runDemoCommand } = await import('./command.js');
const { DemoError } = await import('./errors.js');
const io = { out: (text: string) => process.stdout.write(`${text}\n`), err: (text: string) => process.stderr.write(`${text}\n`) };
// Exits once stdout and stderr have taken everything: process.exit drops what a pipe has not read.
const exitAfterOutput = (code: number) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
runDemoCommand(process.argv.slice(2), io).then(
  () => exitAfterOutput(Number(process.exitCode ?? 0)),
  (error: unknown) => {
    const known = error instanceof DemoError;
    process.stderr.write(`demo: ${known ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitAfterOutput(known ? error.exitCode : 1);
  },
);

#!/usr/bin/env node
// npm run test:packages: build and pack every public package, check each tarball, then
// install the tarballs into apps outside the workspace and run them: an ESM Nest 12 app, a
// Lambda function (one SQS event against the emulator), a CDK app (synth with cdk-nag, then `npx requeue local` on its template), a CommonJS Nest 11
// app with no optional peer configured from that template's environment (on Node 24 and on
// the oldest supported Node), and a bare CLI install. Nothing is published.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCdkApp } from './packages/cdk-check.mjs';
import { checkCli } from './packages/cli-check.mjs';
import { checkSimulate } from './packages/simulate-check.mjs';
import { checkCommonJsApp } from './packages/cjs-check.mjs';
import { checkInstallFromPack } from './packages/pack-install-check.mjs';
import { checkLambdaApp } from './packages/lambda-check.mjs';
import { startRequeueLocal } from './packages/local-check.mjs';
import { installNode } from './packages/node-version.mjs';
import { checkNestApp } from './packages/nest-check.mjs';
import { packPackage } from './packages/pack.mjs';
import { PUBLIC_PACKAGES } from './packages/public-packages.mjs';
import { CheckError, run } from './packages/run.mjs';
import { installExample } from './packages/scratch.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The oldest Node the packages support (their engines field): CommonJS apps load them with require(esm) from here on. */
const OLDEST_NODE = '22.12.0';
const started = performance.now();
const step = (text) => process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${text}\n`);

async function main() {
  const scratch = await mkdtemp(join(tmpdir(), 'requeue-packages-'));
  if (!relative(root, scratch).startsWith('..')) throw new CheckError(`the scratch directory ${scratch} is inside the workspace; set TMPDIR elsewhere`);
  step(`building; scratch apps in ${scratch}`);
  await run(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root });
  const tarballs = [];
  for (const pkg of PUBLIC_PACKAGES) {
    tarballs.push(await packPackage(root, pkg, join(scratch, 'tarballs')));
    step(`${pkg.name}: API report, publint, attw and contents clean`);
  }
  for (const t of tarballs)
    step(
      `  ${t.name.padEnd(16)} ${(t.size / 1024).toFixed(1).padStart(6)} kB packed, ${(t.unpackedSize / 1024).toFixed(0).padStart(4)} kB unpacked, ${await exportCount(t.name)} public exports`,
    );

  const { startLoopbackEmulator, freePort } = await import(join(root, 'libs/local-aws/dist/index.js'));
  const emulator = await startLoopbackEmulator(await freePort());
  try {
    const nestDir = await installExample(join(root, 'examples/nest-app'), scratch, tarballs);
    step('ESM Nest 12 app installed from the tarballs');
    const nest = await checkNestApp(nestDir, { endpoint: emulator.endpoint, freePort });
    step(
      `ESM Nest 12 app: strict type-check; orders consumer from workerOptionsFromEnv(); RequeuePublisher to two queues; two consumers: success, retry, schema dead letter, dead letter, email, both drained; drain on SIGTERM (${nest.paymentsCalls.length} payment calls)`,
    );
    const lambdaDir = await installExample(join(root, 'examples/lambda-app'), scratch, tarballs);
    const lambda = await checkLambdaApp(lambdaDir, emulator);
    step(
      `Lambda function: strict type-check as @types/aws-lambda's SQSHandler; one event of three deliveries: done, retried as a delayed copy, dead-lettered (${lambda.deadLetter})`,
    );
    const cdkDir = await installExample(join(root, 'examples/cdk-app'), scratch, tarballs);
    const cdk = await checkCdkApp(cdkDir);
    step(`CDK app: cdk-nag clean synth of ${cdk.resources} resources; task role on the queue key: ${[...new Set(cdk.keyActions)].join(', ')}`);
    const cjsDir = await installExample(join(root, 'examples/nest-cjs-app'), scratch, tarballs);
    step('CommonJS Nest 11 app installed from the tarballs, no optional peer; a store configured without its peers says what to install');
    for (const node of [process.execPath, await installNode(OLDEST_NODE, scratch)]) {
      const { local, stop } = await startRequeueLocal(cdkDir);
      try {
        const cjs = await checkCommonJsApp(cjsDir, local, { freePort, node });
        step(
          `CommonJS app on Node ${node === process.execPath ? process.versions.node : OLDEST_NODE}, configured by workerOptionsFromEnv() from \`npx requeue local\` on the CDK app's template: ${cjs.maxInFlight} at once (WORKER_MAX_IN_FLIGHT), dead-lettered after ${cjs.maxAttempts} attempts (RETRY_POLICY), EMF in ${cjs.namespace}`,
        );
      } finally {
        await stop();
      }
    }
    const fromPack = await checkInstallFromPack(scratch);
    step(`npm run pack, then its install line for @requeue/sqs in an empty app: ${fromPack}`);
    const listing = await checkCli(scratch, tarballs, nest.dlqUrl);
    step(
      `CLI: npx requeue dlq list\n${listing
        .split('\n')
        .filter((line) => !line.startsWith('npm warn'))
        .join('\n')
        .replace(/^/gm, '        ')}`,
    );
    const simulated = await checkSimulate(cdkDir, join(scratch, 'ops'));
    step(
      `CLI: npx requeue simulate through an outage: ${simulated.succeeded} succeeded, ${simulated.deadLettered.total} dead-lettered, in ${simulated.wallSeconds} s; without @requeue/local-aws it says what to install`,
    );
  } finally {
    await emulator.stop();
  }
  await rm(scratch, { recursive: true, force: true });
  step('packages: every check passed');
}

/** Exports a package's API report lists: what a change to the public API shows in review. */
async function exportCount(name) {
  const pkg = PUBLIC_PACKAGES.find((p) => p.name === name);
  let count = 0;
  for (const config of pkg.apiReports) {
    const reportName =
      config === 'api-extractor.json' ? `${name.split('/')[1]}.api.md` : `${name.split('/')[1]}-${config.replace(/^api-extractor\.|\.json$/g, '')}.api.md`;
    const report = await readFile(join(root, pkg.dir, 'etc', reportName), 'utf8');
    count += (report.match(/^export /gm) ?? []).length;
  }
  return pkg.apiReports.length === 0 ? 'bin only, 0' : count;
}

main().catch((error) => {
  process.stderr.write(`test:packages failed: ${error instanceof CheckError ? error.message : (error.stack ?? error)}\n`);
  process.exit(1);
});

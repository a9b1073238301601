import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalAws, LocalEventSource } from '@requeue/local-aws';
import { parseCommandArgs } from '../args.js';
import { CliError, CliUsageError } from '../errors.js';
import { importLocalAws } from '../local-aws-peer.js';
import type { CliIo } from '../io.js';
import { localJson, localSummary } from './format.js';
import { startInvoking } from './invoke.js';

export const LOCAL_USAGE = `usage: requeue local [--template <cdk.out/Stack.template.json>] [--port N] [--region R] [--json]
                     [--invoke [--file <handler.js>] [--export <name>] [--function <logical id>]]

Runs an SQS/SNS emulator on 127.0.0.1 (never another interface) with your stack's queues,
DLQs, redrive, topics and subscriptions, from the template \`npx cdk synth\` wrote. Prints the
queue URLs, the AWS_ENDPOINT_URL line, and your worker containers' and functions'
environment. Ctrl-C stops it.

  --template  the synthesized stack; default: the only *.template.json in ./cdk.out
  --port      default 4566; 0 picks a free port
  --region    the region the queue URLs and ARNs name; default us-east-1
  --json      print one JSON document instead of the summary
  --invoke    run the stack's Lambda function here, from the bundle \`cdk synth\` wrote: with the
              function's environment, polling its queue and deleting what it does not
              report failed, as Lambda's event source does; a line per invocation on stderr
  --file      with --invoke, run this file of yours instead (built JavaScript)
  --export    the export to call; default: the template's Handler says (index.handler)
  --function  which function, when the stack has several on queues`;

const options = {
  template: { type: 'string' },
  port: { type: 'string', default: '4566' },
  region: { type: 'string', default: 'us-east-1' },
  json: { type: 'boolean', default: false },
  invoke: { type: 'boolean', default: false },
  file: { type: 'string' },
  export: { type: 'string' },
  function: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function templatePath(given: string | undefined): string {
  if (given !== undefined) return given;
  let found: string[];
  try {
    found = readdirSync('cdk.out').filter((name) => name.endsWith('.template.json'));
  } catch (cause) {
    throw new CliError('no --template given and no ./cdk.out here: run `npx cdk synth` in your CDK app first, or pass --template <path>', 1, { cause });
  }
  if (found.length === 1) return join('cdk.out', found[0]!);
  if (found.length === 0) throw new CliError('./cdk.out has no *.template.json: run `npx cdk synth` first, or pass --template <path>');
  throw new CliError(`./cdk.out has ${found.length} stacks (${found.join(', ')}): choose one with --template cdk.out/<Stack>.template.json`);
}

function port(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || parsed > 65_535) throw new CliUsageError(`--port takes a port from 0 to 65535, got ${JSON.stringify(value)}`);
  return parsed;
}

/** `requeue local`: runs until SIGINT or SIGTERM (or `until`, for tests), then stops the emulator. */
export async function runLocalCommand(argv: string[], io: CliIo, until: Promise<unknown> = stopSignal()): Promise<void> {
  const { values } = parseCommandArgs('local', argv, options);
  if (values.help) {
    io.out(LOCAL_USAGE);
    return;
  }
  const stray = (['file', 'export', 'function'] as const).find((name) => values[name] !== undefined && !values.invoke);
  if (stray) throw new CliUsageError(`--${stray} goes with --invoke`);
  const path = templatePath(values.template);
  const { readStackTemplate, startLocalAws, LocalProvisioningError } = await importLocalAws('local', () => import('@requeue/local-aws'));
  let local: LocalAws;
  try {
    local = await startLocalAws({ port: port(values.port), template: readStackTemplate(path), region: values.region, stackName: stackName(path) });
  } catch (error) {
    if (error instanceof LocalProvisioningError) throw new CliError(error.message, 1, { cause: error });
    throw error;
  }
  let invoking: LocalEventSource | undefined;
  try {
    io.out(values.json ? localJson(local, path) : localSummary(local, path));
    const request = { templatePath: path, file: values.file, exportName: values.export, functionId: values.function };
    if (values.invoke) invoking = await startInvoking(local, request, io);
    await until;
  } finally {
    await invoking?.stop();
    await local.stop();
  }
}

/** `Orders` for `cdk.out/Orders.template.json`: the stack name CloudFormation would derive queue names from. */
function stackName(path: string): string {
  return path
    .split('/')
    .pop()!
    .replace(/\.template\.json$/, '');
}

function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

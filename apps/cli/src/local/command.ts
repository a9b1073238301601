import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalAws } from '@requeue/local-aws';
import { parseCommandArgs } from '../args.js';
import { CliError, CliUsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { localJson, localSummary } from './format.js';

export const LOCAL_USAGE = `usage: requeue local [--template <cdk.out/Stack.template.json>] [--port N] [--region R] [--json]

Runs an SQS/SNS emulator on 127.0.0.1 (never another interface) with your stack's queues,
DLQs, redrive, topics and subscriptions, from the template \`npx cdk synth\` wrote. Prints the
queue URLs, the AWS_ENDPOINT_URL line, and your worker containers' environment. Ctrl-C stops it.

  --template  the synthesized stack; default: the only *.template.json in ./cdk.out
  --port      default 4566; 0 picks a free port
  --region    the region the queue URLs and ARNs name; default us-east-1
  --json      print one JSON document instead of the summary`;

const options = {
  template: { type: 'string' },
  port: { type: 'string', default: '4566' },
  region: { type: 'string', default: 'us-east-1' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The emulator package, an optional peer: a CLI installed for the dead letters alone does not carry it. */
async function loadLocalAws(): Promise<typeof import('@requeue/local-aws')> {
  try {
    return await import('@requeue/local-aws');
  } catch (cause) {
    if ((cause as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((cause as Error).message).includes('@requeue/local-aws')) {
      throw new CliError('requeue local needs the emulator package, which is not installed: npm install --save-dev @requeue/local-aws', 1, { cause });
    }
    throw cause;
  }
}

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
  const path = templatePath(values.template);
  const { readStackTemplate, startLocalAws, LocalProvisioningError } = await loadLocalAws();
  let local: LocalAws;
  try {
    local = await startLocalAws({ port: port(values.port), template: readStackTemplate(path), region: values.region, stackName: stackName(path) });
  } catch (error) {
    if (error instanceof LocalProvisioningError) throw new CliError(error.message, 1, { cause: error });
    throw error;
  }
  try {
    io.out(values.json ? localJson(local, path) : localSummary(local, path));
    await until;
  } finally {
    await local.stop();
  }
}

/** `Orders` for `cdk.out/Orders.template.json`: the stack name CloudFormation would derive queue names from. */
function stackName(path: string): string {
  return path.split('/').pop()!.replace(/\.template\.json$/, '');
}

function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

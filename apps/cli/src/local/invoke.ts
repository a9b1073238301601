import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { LocalAws, LocalEventSource, LocalInvocation, LocalSqsHandler, TemplateEventSource } from '@requeue/local-aws';
import { CliError, CliUsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { onEndpoint, sdkEnvironment } from './format.js';

/** Which handler to run, and on which of the stack's functions. */
export interface InvokeRequest {
  /** The synthesized template: the function's bundle is beside it. */
  templatePath: string;
  /** A handler file of yours (built JavaScript); without it, the function's bundle from `cdk synth`. */
  file: string | undefined;
  /** The export to call; without it, the template's `Handler` says (or `handler`). */
  exportName: string | undefined;
  /** The function's logical id, when the stack has several with an SQS event source. */
  functionId: string | undefined;
}

/** The file and export to run: the one given, or the bundle `cdk synth` wrote for the function. */
export function handlerToRun(source: TemplateEventSource, request: InvokeRequest): { file: string; exportName: string } {
  const [base, exported] = splitHandler(source.handler ?? 'index.handler');
  if (request.file !== undefined) return { file: request.file, exportName: request.exportName ?? 'handler' };
  if (source.codeAsset === undefined) {
    throw new CliError(`${source.function}'s code is not a folder cdk synth wrote (inline, or from S3): give the handler's built JavaScript with --file`);
  }
  const folder = join(dirname(request.templatePath), source.codeAsset);
  const file = ['.mjs', '.js', '.cjs'].map((extension) => join(folder, `${base}${extension}`)).find((path) => existsSync(path));
  if (file === undefined) {
    const names = `the file ${source.function}'s Handler (${source.handler}) names`;
    throw new CliError(`${folder} has no ${base}.mjs or ${base}.js, ${names}: run \`npx cdk synth\` again, or give --file`);
  }
  return { file, exportName: request.exportName ?? exported };
}

function splitHandler(handler: string): [string, string] {
  const dot = handler.lastIndexOf('.');
  return dot < 0 ? [handler, 'handler'] : [handler.slice(0, dot), handler.slice(dot + 1)];
}

/** The function `--invoke` stands in for: the one with an SQS event source, or the one `--function` names. */
export function chosenEventSource(local: LocalAws, functionId: string | undefined): TemplateEventSource {
  const sources = local.stack.eventSources;
  if (sources.length === 0) {
    throw new CliError('--invoke needs a Lambda function with an SQS event source in the template (QueueWorkerFunction); this one has none');
  }
  const ids = sources.map((s) => s.function).join(', ');
  if (functionId !== undefined) {
    const named = sources.find((source) => source.function === functionId);
    if (!named) throw new CliUsageError(`--function ${functionId}: no function of that logical id reads a queue here; the stack has ${ids}`);
    return named;
  }
  if (sources.length > 1) throw new CliUsageError(`the stack has ${sources.length} functions on queues (${ids}): choose one with --function <logical id>`);
  return sources[0]!;
}

/**
 * Sets the function's environment as the stack gives it (queue URLs on the endpoint) and
 * the SDK's, then loads the handler: a function reads its environment when its module loads.
 */
async function loadHandler(local: LocalAws, source: TemplateEventSource, request: { file: string; exportName: string }): Promise<LocalSqsHandler> {
  const fix = onEndpoint(local);
  const environment = local.stack.containers.find((c) => c.kind === 'function' && c.container === source.function)?.environment ?? {};
  for (const [name, value] of Object.entries(environment)) process.env[name] = fix(value);
  Object.assign(process.env, sdkEnvironment(local));
  const path = isAbsolute(request.file) ? request.file : resolve(request.file);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (cause) {
    const problem = `cannot load ${request.file} (${(cause as Error).message})`;
    throw new CliError(`${problem}: give built JavaScript, or synthesize the bundle with \`npx cdk synth\``, 1, { cause });
  }
  const handler = module[request.exportName];
  if (typeof handler !== 'function') {
    const exported = Object.keys(module).join(', ') || 'nothing';
    throw new CliUsageError(`${request.file} exports no function named ${request.exportName} (it exports ${exported}): name it with --export`);
  }
  return handler as LocalSqsHandler;
}

/** One line per invocation: how many records, which stay, and why. */
export function invocationLine(functionId: string, invocation: LocalInvocation): string {
  const head = `${functionId}: ${invocation.records.length} record(s) in ${invocation.durationMs} ms`;
  if (invocation.error) return `${head}; it threw (${invocation.error.message}), so all stay on the queue`;
  if (invocation.failed.length === 0) return `${head}; all done, deleted`;
  return `${head}; ${invocation.failed.length} reported failed, staying on the queue: ${invocation.failed.join(', ')}`;
}

/** Polls the function's queue and invokes the handler as Lambda's event source mapping would, until stopped. */
export async function startInvoking(local: LocalAws, request: InvokeRequest, io: CliIo): Promise<LocalEventSource> {
  const source = chosenEventSource(local, request.functionId);
  const chosen = handlerToRun(source, request);
  const handler = await loadHandler(local, source, chosen);
  const { startLocalEventSource } = await import('@requeue/local-aws');
  const sqs = new SQSClient({ endpoint: local.endpoint, region: local.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const queueUrl = onEndpoint(local)(source.queueUrl);
  const onInvocation = (invocation: LocalInvocation) => io.err(invocationLine(source.function, invocation));
  const running = startLocalEventSource({ sqs, source: { ...source, queueUrl }, handler, region: local.region, onInvocation });
  io.err(`Invoking ${chosen.file} (${chosen.exportName}) as ${source.function}, ${source.batchSize} record(s) at most per call, from ${queueUrl}`);
  return {
    invocations: running.invocations,
    async stop() {
      await running.stop();
      sqs.destroy();
    },
  };
}

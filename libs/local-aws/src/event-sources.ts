import type { TemplateResolver } from './resolve.js';
import { LocalProvisioningError, type CloudFormationTemplate } from './template.js';

/** A Lambda function's SQS event source in the template (`AWS::Lambda::EventSourceMapping`), on its local queue. */
export interface TemplateEventSource {
  /** The function's logical id. */
  function: string;
  /** The queue it reads, on the endpoint. */
  queueUrl: string;
  /** That queue's ARN: each record's `eventSourceARN`. */
  queueArn: string;
  /** Records per invocation (`BatchSize`; Lambda's default is 10). */
  batchSize: number;
  /** Whether the function's answer names the records that failed (`ReportBatchItemFailures`). */
  reportsBatchItemFailures: boolean;
  /** The function's `Timeout` in seconds (Lambda's default is 3). */
  timeoutSeconds: number;
  /** The function's `Handler`, `<file>.<export>` (`index.handler`). */
  handler: string | undefined;
  /** The folder beside the template where `cdk synth` wrote the function's code (`asset.<hash>`), when the code is an asset. */
  codeAsset: string | undefined;
}

/**
 * The template's SQS event sources whose function and queue are both in it, resolved
 * against the provisioned queues: what `requeue local --invoke` polls as Lambda would.
 */
export function templateEventSources(
  template: CloudFormationTemplate,
  resolver: TemplateResolver,
  queues: Record<string, { queueUrl: string; queueArn: string }>,
): TemplateEventSource[] {
  const found: TemplateEventSource[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const properties = resource.Properties ?? {};
    const functionId = (properties.FunctionName as { Ref?: unknown } | undefined)?.Ref;
    const fn = typeof functionId === 'string' ? template.Resources[functionId] : undefined;
    if (typeof functionId !== 'string' || fn?.Type !== 'AWS::Lambda::Function') continue;
    const queueArn = arnOf(resolver, properties.EventSourceArn, `${logicalId}.EventSourceArn`);
    const queue = Object.values(queues).find((candidate) => candidate.queueArn === queueArn);
    if (!queue || queueArn === undefined) continue;
    const responseTypes = Array.isArray(properties.FunctionResponseTypes) ? properties.FunctionResponseTypes : [];
    found.push({
      function: functionId,
      queueUrl: queue.queueUrl,
      queueArn,
      batchSize: Number(properties.BatchSize ?? 10),
      reportsBatchItemFailures: responseTypes.includes('ReportBatchItemFailures'),
      timeoutSeconds: Number(fn.Properties?.Timeout ?? 3),
      handler: typeof fn.Properties?.Handler === 'string' ? fn.Properties.Handler : undefined,
      codeAsset: codeAssetOf(fn.Properties?.Code),
    });
  }
  return found;
}

/** The source's ARN, or undefined when it names something not provisioned here (a Kinesis stream, a queue of another stack). */
function arnOf(resolver: TemplateResolver, value: unknown, path: string): string | undefined {
  try {
    return resolver.resolveString(value, path);
  } catch (error) {
    if (error instanceof LocalProvisioningError) return undefined;
    throw error;
  }
}

/** `asset.<hash>` for code the CDK staged as an asset: its S3 key is `<hash>.zip`. */
function codeAssetOf(code: unknown): string | undefined {
  const key = (code as { S3Key?: unknown } | undefined)?.S3Key;
  return typeof key === 'string' && /^[0-9a-f]{64}\.zip$/.test(key) ? `asset.${key.slice(0, -'.zip'.length)}` : undefined;
}

import type { LocalAws } from '@requeue/local-aws';

const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };

/**
 * The emulator names its queues `http://sqs.<region>.localhost:<port>/…`; a name under
 * .localhost does not resolve everywhere, so every URL printed addresses the endpoint itself.
 */
export function onEndpoint(local: LocalAws): (value: string) => string {
  const origin = `http://sqs.${local.region}.localhost:${local.port}`;
  return (value) => value.replaceAll(origin, local.endpoint);
}

/** The stack with every queue URL on the endpoint. */
function addressed(local: LocalAws) {
  const fix = onEndpoint(local);
  const { queues, topics, containers, outputs } = local.stack;
  return {
    queues: Object.fromEntries(Object.entries(queues).map(([id, queue]) => [id, fix(queue.queueUrl)])),
    topics: Object.fromEntries(Object.entries(topics).map(([id, topic]) => [id, topic.topicArn])),
    outputs: Object.fromEntries(Object.entries(outputs).map(([name, value]) => [name, fix(value)])),
    containers: containers.map((c) => ({ ...c, environment: Object.fromEntries(Object.entries(c.environment).map(([name, value]) => [name, fix(value)])) })),
  };
}

/** What an SDK or the AWS CLI needs to reach the emulator. */
export function sdkEnvironment(local: LocalAws): Record<string, string> {
  return { AWS_ENDPOINT_URL: local.endpoint, AWS_REGION: local.region, ...CREDENTIALS };
}

/** The summary a developer reads: addresses, the export line, each container's environment. */
export function localSummary(local: LocalAws, templatePath: string): string {
  const { queues, topics, containers } = addressed(local);
  const width = Math.max(0, ...[...Object.keys(queues), ...Object.keys(topics)].map((id) => id.length));
  const lines = [`requeue local: SQS/SNS emulator on ${local.endpoint} (127.0.0.1 only), provisioned from ${templatePath}`];
  for (const [logicalId, queueUrl] of Object.entries(queues)) lines.push(`  queue  ${logicalId.padEnd(width)}  ${queueUrl}`);
  for (const [logicalId, topicArn] of Object.entries(topics)) lines.push(`  topic  ${logicalId.padEnd(width)}  ${topicArn}`);
  lines.push('Point the AWS SDK and CLI at it (it checks no credentials; these are placeholders):');
  lines.push(
    `  export ${Object.entries(sdkEnvironment(local))
      .map(([name, value]) => `${name}=${value}`)
      .join(' ')}`,
  );
  for (const container of containers) {
    lines.push(`${container.kind === 'function' ? 'Function' : 'Container'} ${container.container}, its environment here:`);
    for (const [name, value] of Object.entries(container.environment)) lines.push(`  ${name}=${shellQuoted(value)}`);
    if (container.notLocal.length > 0) lines.push(`  (not local, set them yourself if your app needs them: ${container.notLocal.join(', ')})`);
  }
  lines.push('Ctrl-C stops it; the queues and their messages go with it.');
  return lines.join('\n');
}

/** The same as one JSON document, for scripts. */
export function localJson(local: LocalAws, templatePath: string): string {
  return JSON.stringify({ template: templatePath, endpoint: local.endpoint, region: local.region, env: sdkEnvironment(local), ...addressed(local) });
}

function shellQuoted(value: string): string {
  return /^[\w@%+=:,./-]*$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

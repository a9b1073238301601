export interface EmbeddedAws {
  endpoint: string;
  queueUrl: string;
  dlqUrl: string;
  topicArn: string;
  stop(): Promise<void>;
}

/** Thrown when the embedded emulator cannot start or be provisioned. */
export class EmbeddedAwsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddedAwsError';
  }
}

/**
 * Starts the embedded emulator provisioned from the CDK stack's own template, synthesized
 * in memory with the deployed props, so `npm start` runs on the queues `cdk deploy`
 * creates. Loaded lazily: production images carry neither the emulator nor the CDK.
 */
export async function startEmbeddedAws(port: number): Promise<EmbeddedAws> {
  const { startLocalAws, synthesizeStackTemplate, LocalProvisioningError } = await import('@requeue/local-aws');
  try {
    const local = await startLocalAws({ port, template: synthesizeStackTemplate() });
    const missing = ['QueueUrl', 'DLQUrl', 'TopicArn'].filter((name) => local.stack.outputs[name] === undefined);
    if (missing.length > 0) {
      await local.stop();
      throw new LocalProvisioningError(`the stack template lacks the ${missing.join(', ')} output(s) the worker needs`);
    }
    const output = (name: string) => local.stack.outputs[name]!;
    return { endpoint: local.endpoint, queueUrl: output('QueueUrl'), dlqUrl: output('DLQUrl'), topicArn: output('TopicArn'), stop: () => local.stop() };
  } catch (cause) {
    if (cause instanceof LocalProvisioningError) throw new EmbeddedAwsError(cause.message, { cause });
    throw cause;
  }
}

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

/** A listen that failed because the port is taken, however deep the error that says so. */
export function isAddressInUse(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if ((current as NodeJS.ErrnoException).code === 'EADDRINUSE') return true;
  }
  return false;
}

/**
 * Starts the embedded emulator provisioned from the CDK stack's own template, synthesized
 * in memory with the deployed props, so `npm start` runs on the queues `cdk deploy`
 * creates. Loaded lazily: production images carry neither the emulator nor the CDK.
 */
export async function startEmbeddedAws(port: number): Promise<EmbeddedAws> {
  const { startLocalRequeueStack, LocalProvisioningError, requeueStackTemplate } = await loadEmulator();
  try {
    return await startLocalRequeueStack({ port, template: requeueStackTemplate() });
  } catch (cause) {
    if (isAddressInUse(cause))
      throw new EmbeddedAwsError(
        `WORKER_EMULATOR_PORT: port ${port} is taken (another emulator or worker?); ` +
          `stop what listens there, or set WORKER_EMULATOR_PORT to a free port (0 for any)`,
        { cause },
      );
    if (cause instanceof LocalProvisioningError) throw new EmbeddedAwsError(cause.message, { cause });
    throw cause;
  }
}

/** The emulator and the stack's CDK app, which a production install (the worker image) leaves out. */
async function loadEmulator(): Promise<typeof import('@requeue/local-aws') & Pick<typeof import('@requeue/infra'), 'requeueStackTemplate'>> {
  try {
    const [emulator, { requeueStackTemplate }] = await Promise.all([import('@requeue/local-aws'), import('@requeue/infra')]);
    return { ...emulator, requeueStackTemplate };
  } catch (cause) {
    if ((cause as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw cause;
    throw new EmbeddedAwsError(
      'WORKER_QUEUE_URL is not set, and this install has no embedded emulator (a production install, ' +
        'such as the worker image, leaves it out); set WORKER_QUEUE_URL and WORKER_DLQ_URL, or WORKER_CONSUMERS',
      { cause },
    );
  }
}

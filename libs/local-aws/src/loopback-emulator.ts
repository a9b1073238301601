import type { AddressInfo } from 'node:net';
import { buildApp } from 'fauxqs';
import { emulatorStores } from './fauxqs-stores.js';
import { enforceSqsLimits } from './sqs-limits-hook.js';
import { LocalProvisioningError } from './template.js';

/** The emulator, listening on 127.0.0.1 only. */
export interface LoopbackEmulator {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** The port it listens on. */
  port: number;
  /** Stops it. */
  stop(): Promise<void>;
}

/** Host headers a request to this machine's loopback carries: anything else came through a DNS name pointed here. */
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/**
 * The SQS/SNS emulator (fauxqs) on 127.0.0.1 only, checking no credentials, so it must be
 * out of everyone else's reach: fauxqs's own starter listens on every interface, where
 * anyone on the network could read, purge or publish. It also refuses requests a browser
 * makes on a web page's behalf (they carry `Origin`) and requests for any other host name
 * (DNS rebinding): a page the developer visits cannot publish to the topic. It refuses
 * what SQS refuses (`checkSqsRequest`), so what works here works in AWS.
 */
export async function startLoopbackEmulator(port: number): Promise<LoopbackEmulator> {
  const { stores, catchUp } = await emulatorStores();
  const app = buildApp({ logger: false, ...(stores ? { stores } : {}) });
  // Counts as SQS keeps them, by the clock: a hidden message shows again in GetQueueAttributes once its time is up.
  app.addHook('preHandler', async (request) => {
    if (request.headers['x-amz-target'] === 'AmazonSQS.GetQueueAttributes') catchUp();
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.origin !== undefined) {
      return reply.code(403).send({ error: 'requests from a browser page are refused: the local emulator serves SDKs and the CLI only' });
    }
    if (!LOOPBACK_HOST.test(request.headers.host ?? '')) {
      return reply.code(403).send({ error: 'only 127.0.0.1, localhost and [::1] are answered' });
    }
    return undefined;
  });
  enforceSqsLimits(app);
  try {
    await app.listen({ port, host: '127.0.0.1' });
  } catch (cause) {
    await app.close();
    throw new LocalProvisioningError(
      `could not start the embedded emulator on 127.0.0.1:${port}: ${(cause as Error).message}. ` +
        'Another emulator may be running: point WORKER_QUEUE_URL and WORKER_DLQ_URL at it, or choose another port.',
      { cause },
    );
  }
  const bound = (app.server.address() as AddressInfo).port;
  return { endpoint: `http://127.0.0.1:${bound}`, port: bound, stop: () => app.close() };
}

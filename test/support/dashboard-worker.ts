import { eventually, type Emulator, type QueuePair } from './emulator.js';
import { startWorkerProcess, waitUntilReady, type WorkerProcess } from './worker-process.js';

/** The worker app on `queues` with its local dashboard on, ready; its dashboard's URL, origin and token. */
export async function startWorkerWithDashboard(
  emulator: Emulator,
  queues: QueuePair,
  track: (worker: WorkerProcess) => WorkerProcess,
  env: Record<string, string> = {},
) {
  const worker = track(
    startWorkerProcess({
      WORKER_QUEUE_URL: queues.queueUrl,
      WORKER_DLQ_URL: queues.dlqUrl,
      AWS_ENDPOINT_URL: emulator.endpoint,
      WORKER_WAIT_TIME_SECONDS: '1',
      WORKER_DASHBOARD: 'on',
      // Any free port, read back from the dashboard line: a port probed free first can be taken by another test's process before the worker binds it.
      WORKER_DASHBOARD_PORT: '0',
      ...env,
    }),
  );
  await waitUntilReady(worker);
  const url = await eventually(() => /dashboard on (\S+)/.exec(worker.output())?.[1], 10_000, 'the dashboard line');
  const { origin, hash } = new URL(url);
  return { worker, url, base: origin, token: hash.replace('#token=', '') };
}

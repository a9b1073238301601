import { startSystem, type BenchEmulator } from './driver.js';

/** SQS calls a worker makes with nothing to do. */
export interface IdleRun {
  seconds: number;
  callsPerMinute: number;
  callsPerMinuteByAction: Record<string, number>;
}

/**
 * requeue at its defaults (maxInFlight 50, prefetch 50, 20 s long polls) on an empty
 * queue for `seconds`, counted at the proxy: the cost of a worker waiting for work.
 */
export async function measureIdle(emulator: BenchEmulator, seconds: number): Promise<IdleRun> {
  const name = `bench-idle-${process.pid}`;
  const dlq = await emulator.control<{ queueUrl: string; queueArn: string }>('create', { queue: `${name}-dlq` });
  const queue = await emulator.control<{ queueUrl: string }>('create', { queue: name, attributes: { VisibilityTimeout: '30' } });
  const started = await startSystem({ system: 'requeue', concurrency: 50 }, emulator.endpoint, queue.queueUrl, dlq.queueUrl);
  try {
    await started.ready;
    // Counted from ready: start-up's one GetQueueAttributes is not what idling costs.
    const before = await emulator.control<Record<string, number>>('counts', { queue: name });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const after = await emulator.control<Record<string, number>>('counts', { queue: name });
    const perMinute = (action: string) => (((after[action] ?? 0) - (before[action] ?? 0)) * 60) / seconds;
    const callsPerMinuteByAction = Object.fromEntries(
      Object.keys(after)
        .map((action) => [action, perMinute(action)])
        .filter(([, n]) => (n as number) > 0),
    );
    return { seconds, callsPerMinute: Object.values(callsPerMinuteByAction).reduce((sum: number, n) => sum + (n as number), 0), callsPerMinuteByAction };
  } finally {
    const exited = new Promise((resolve) => started.child.once('exit', resolve));
    started.child.kill('SIGKILL');
    await exited;
    await emulator.control('delete', { queue: name });
    await emulator.control('delete', { queue: `${name}-dlq` });
  }
}

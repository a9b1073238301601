/**
 * The walk of one retried message (`npm run bench:walk`): which functions of the engine
 * (`@requeue/sqs` and `@requeue/retry`) run from the moment a message whose handler fails
 * is added to the queue until its original is deleted, its retry copy sent first. Counted
 * by V8's precise coverage (call counts per function) over that window only, after a
 * warm-up of the same path, against the in-memory SQS of the tests, with one message in
 * flight. A stop is a function that ran; the count of its calls is beside it. Prints a
 * table per file, or with `--json` one JSON document `{ stops, calls, files, byFile }`.
 */
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { SqsWorker } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

const QUEUE_URL = 'http://127.0.0.1/000000000000/walk';
const WARM_UP = 300;

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; count: number }[];
}
interface Coverage {
  result: { url: string; functions: FunctionCoverage[] }[];
}

/** The engine's own files: the two packages' built code, wherever the workspace links them from. */
function engineFiles(): (url: string) => string | undefined {
  const roots = ['@requeue/sqs', '@requeue/retry'].map((name) => new URL('.', import.meta.resolve(name)).href);
  const libs = new URL('../..', roots[0]).href;
  return (url) => (roots.some((root) => url.startsWith(root)) ? fileURLToPath(url).slice(fileURLToPath(libs).length) : undefined);
}

/** Waits for `done()` turn by turn of the event loop, so the wait itself runs none of the engine. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
}

async function walk(): Promise<Map<string, number>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  // The clock stands still, so no retry copy becomes visible again inside the window.
  const frozen = Date.now();
  const queue = new MemorySqs({ queueUrl: QUEUE_URL, now: () => frozen });
  const worker = new SqsWorker({
    sqs: queue.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    // A message-scoped failure (DEFAULT): retried by a copy, never opening the breaker.
    handler: () => Promise.reject(new Error('flaky dependency')),
    maxInFlight: 1,
    waitTimeSeconds: 1,
    tracing: false,
  });
  await worker.start();
  for (let n = 0; n < WARM_UP; n++) {
    const id = queue.add(JSON.stringify({ n }));
    await until(() => queue.deleted.includes(id));
  }
  // In count mode each take resets the counters: the next take holds the window alone.
  await session.post('Profiler.takePreciseCoverage');
  const id = queue.add(JSON.stringify({ n: 'walked' }));
  await until(() => queue.deleted.includes(id));
  const window = (await session.post('Profiler.takePreciseCoverage')) as Coverage;
  await worker.stop();
  queue.close();
  session.disconnect();
  const fileOf = engineFiles();
  const stops = new Map<string, number>();
  for (const script of window.result) {
    const file = fileOf(script.url);
    if (file === undefined) continue;
    for (const fn of script.functions) {
      const count = fn.ranges[0]?.count ?? 0;
      if (count > 0) stops.set(`${file} ${fn.functionName || '(anonymous)'}@${fn.ranges[0]!.startOffset}`, count);
    }
  }
  return stops;
}

const stops = await walk();
const byFile: Record<string, number> = {};
for (const key of stops.keys()) {
  const file = key.split(' ')[0]!;
  byFile[file] = (byFile[file] ?? 0) + 1;
}
const calls = [...stops.values()].reduce((sum, count) => sum + count, 0);
const summary = { stops: stops.size, calls, files: Object.keys(byFile).length, byFile };
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(summary)}\n`);
else {
  for (const [file, count] of Object.entries(byFile).sort(([, a], [, b]) => b - a)) process.stdout.write(`${String(count).padStart(4)}  ${file}\n`);
  process.stdout.write(`${summary.stops} stops (${calls} calls) in ${summary.files} files\n`);
}
// The worker's stopped; a lingering socket of the fake must not hold the process.
process.exit(0);

import { fileURLToPath } from 'node:url';
import { finishRun, markdownTable, numberFlag, progress } from './report.js';
import { runOutageScenario, runRestartScenario, type ScenarioReport } from '@requeue/test/faults/scenarios';
import { startRedis } from '@requeue/test/support/redis';

const RELIABILITY_DOC = fileURLToPath(new URL('../../docs/reliability.md', import.meta.url));

/**
 * The long fault run: the bounded suite's scenarios at soak scale. Prints the table (or
 * JSON with --json), rewrites docs/reliability.md, and exits 1 if any message was lost
 * or misplaced, or a scenario's own checks failed.
 */
async function main(argv: string[]): Promise<void> {
  const messages = numberFlag(argv, '--messages', 20_000);
  const kills = numberFlag(argv, '--kills', 40);
  const reports: ScenarioReport[] = [];
  const failures: string[] = [];

  progress(`crash loop: ${messages} messages, ${kills} SIGKILLs`);
  const run = { messages, maxInFlight: 20, uptimeMs: [1000, 3000] as [number, number], maxDurationMs: 200, timeoutMs: 600_000, onProgress: progress };
  const crash = await runRestartScenario({ ...run, restarts: kills, signal: 'SIGKILL', seed: 20_000 });
  reports.push(crash);
  if (crash.accounting.duplicates > kills * 20) failures.push(`crash loop: ${crash.accounting.duplicates} duplicates exceed kills × maxInFlight`);

  // The same crash loop with every handler guarded by a Redis store (Debian's redis-server):
  // its duplicates beside the unguarded run's are what idempotency buys.
  progress(`crash loop with idempotency on (Redis): ${messages} messages, ${kills} SIGKILLs`);
  const redis = await startRedis();
  try {
    reports.push(await runRestartScenario({ ...run, restarts: kills, signal: 'SIGKILL', seed: 20_000, idempotency: redis.url }));
  } finally {
    await redis.stop();
  }

  const terms = Math.max(10, Math.round(kills / 2));
  progress(`graceful restarts: ${messages} messages, ${terms} SIGTERMs`);
  const graceful = await runRestartScenario({ ...run, restarts: terms, signal: 'SIGTERM', seed: 20_001 });
  reports.push(graceful);
  if (graceful.accounting.duplicates > 0) failures.push(`graceful restarts: ${graceful.accounting.duplicates} duplicates from the shutdown path`);

  progress('emulator outage: 10 s');
  const outage = await runOutageScenario({
    messages: Math.round(messages / 4),
    outageMs: 10_000,
    maxInFlight: 10,
    maxDurationMs: 60,
    seed: 20_002,
    timeoutMs: 600_000,
  });
  reports.push(outage);
  if (outage.workerExitedDuringRun || !outage.reportedNotReady || !outage.readyAgain) failures.push(`outage: ${JSON.stringify(outage)}`);

  for (const report of reports) {
    if (report.accounting.lost.length > 0) failures.push(`${report.scenario}: lost ${report.accounting.lost.slice(0, 10).join(', ')}`);
    if (report.accounting.misplaced.length > 0) failures.push(`${report.scenario}: misplaced ${JSON.stringify(report.accounting.misplaced.slice(0, 5))}`);
    failures.push(...report.notes.map((note) => `${report.scenario}: ${note}`));
  }

  const table = markdownTable(reports, [
    { header: 'scenario', value: (r) => r.scenario },
    { header: 'messages', value: (r) => r.messages.toLocaleString('en-US') },
    { header: 'faults injected', value: (r) => r.faults },
    { header: 'lost', value: (r) => r.accounting.lost.length },
    { header: 'misplaced', value: (r) => r.accounting.misplaced.length },
    { header: 'succeeded', value: (r) => r.accounting.succeeded.toLocaleString('en-US') },
    { header: 'duplicates (ledger)', value: (r) => r.accounting.duplicates },
    { header: 'duplicates (DLQ)', value: (r) => r.accounting.deadLetterDuplicates },
    {
      header: 'dead-lettered by reason',
      value: (r) =>
        Object.entries(r.accounting.deadLettered)
          .map(([reason, n]) => `${reason} ${n}`)
          .join(', '),
    },
    { header: 'duration (s)', value: (r) => r.durationSeconds.toFixed(0) },
  ]);
  finishRun(argv, { script: 'test:soak', doc: RELIABILITY_DOC, section: 'soak', table, reports, failures });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  progress(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});

import { fileURLToPath } from 'node:url';
import { finishRun, markdownTable, numberFlag, progress } from './report.js';
import { runInterruptionScenario, type InterruptionReport } from '@requeue/test/faults/interruptions';

const INFRA_DOC = fileURLToPath(new URL('../../docs/infra.md', import.meta.url));

/**
 * The interruption harness at full scale: the same fleet, bursts and Spot interruptions
 * with task protection on, then off, side by side. Prints the table (or JSON with --json),
 * rewrites its section of docs/infra.md, and exits 1 if the protected fleet stopped a busy
 * task on scale-in, cut a handler, or lost a message.
 */
async function main(argv: string[]): Promise<void> {
  const spotInterruptions = numberFlag(argv, '--spot', 200);
  const reports: InterruptionReport[] = [];
  for (const protection of [true, false]) {
    progress(`task protection ${protection ? 'on' : 'off'}: ${spotInterruptions} Spot interruptions`);
    reports.push(await runInterruptionScenario({ spotInterruptions, protection, seed: 5000, onProgress: progress }));
  }
  const protectedRun = reports[0]!;
  const failures = (['busyScaleInStops', 'cutRuns', 'killedTasks', 'lost', 'deadLettered'] as const)
    .filter((figure) => protectedRun[figure] > 0)
    .map((figure) => `protection on: ${figure} ${protectedRun[figure]}`);

  const table = markdownTable(reports, [
    { header: 'task protection', value: (r) => (r.protection ? 'on' : 'off') },
    { header: 'Spot interruptions (busy)', value: (r) => `${r.spotInterruptions} (${r.busySpotInterruptions})` },
    { header: 'scale-in stops', value: (r) => r.scaleInStops },
    { header: 'busy tasks stopped by scale-in', value: (r) => r.busyScaleInStops },
    { header: 'handler runs cut', value: (r) => r.cutRuns },
    { header: 'tasks SIGKILLed', value: (r) => r.killedTasks },
    { header: 'messages (lost, duplicated)', value: (r) => `${r.published} (${r.lost}, ${r.duplicates})` },
    {
      header: 'protection calls per busy period',
      value: (r) => (r.protection ? `${r.callsPerBusyPeriod.toFixed(2)} (${r.protectionCalls} / ${r.busyPeriods})` : '-'),
    },
    { header: 'protection calls per message', value: (r) => (r.protection ? r.callsPerMessage.toFixed(3) : '-') },
    { header: 'tasks started', value: (r) => r.tasksStarted },
    { header: 'duration (s)', value: (r) => r.durationSeconds.toFixed(0) },
  ]);
  finishRun(argv, { script: 'test:interruptions', doc: INFRA_DOC, section: 'interruptions', table, reports, failures });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  progress(`interruption harness failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});

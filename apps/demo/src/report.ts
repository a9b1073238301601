import { parseDeadLetterRecord, REDRIVE_BACKSTOP } from '@requeue/retry/engine';
import type { DemoRun } from './run.js';
import type { DemoMessage } from './workload.js';

/** The `--json` document (docs/contracts.md, section 5). */
export interface DemoSummary {
  published: number;
  succeeded: number;
  deadLettered: { total: number; byReason: Record<string, number> };
  attempts: { histogram: Record<string, number> };
  /** Every failed attempt that went back to the queue: `retry` used an attempt, `deferral` kept it (the dependency was paused or its circuit open). */
  retries: Array<{ errorType: string; delaySeconds: number; kind: 'retry' | 'deferral' }>;
  durationSeconds: number;
  /** Ids found neither in the ledger nor in the DLQ. The demo fails unless empty. */
  lost: string[];
  /** Ids that ended somewhere other than their kind says. */
  unexpected: Array<{ id: string; expected: string; found: string }>;
  /** With `--fifo`: the message groups, and how many had their successes in publish order. */
  fifo?: { groups: number; inOrder: number };
}

export interface TimelineEvent {
  atSeconds: number;
  attempt: number;
  outcome: string;
  /** Seconds between this attempt and the previous one: the backoff actually waited. */
  waitedSeconds?: number;
  /** The message went back without using an attempt: its dependency was paused or open. */
  deferred?: boolean;
}

interface Outcome {
  /** The id its publisher got from SNS. */
  snsMessageId?: string;
  /** The id SQS gave its first delivery, as the worker logs it (originalMessageId). */
  sqsMessageId?: string;
  end: string;
  attempts: number;
  events: TimelineEvent[];
}

function outcomesById(workload: readonly DemoMessage[], run: DemoRun): Map<string, Outcome> {
  const originalToId = new Map<string, string>();
  const ends = new Map<string, { end: string; attempts: number; at: number }>();
  for (const line of run.ledger) {
    if (line.originalMessageId) originalToId.set(line.originalMessageId, line.id);
    if (!ends.has(line.id)) ends.set(line.id, { end: 'succeeded', attempts: line.attempt, at: line.at });
  }
  for (const message of run.deadLetters) {
    const id = (JSON.parse(message.Body ?? '{}') as { id?: string }).id ?? message.MessageId!;
    const raw = message.MessageAttributes?.['x-dead-letter']?.StringValue;
    const record = raw ? parseDeadLetterRecord(raw) : undefined;
    if (record) originalToId.set(record.originalMessageId, id);
    const end = record?.reason ?? REDRIVE_BACKSTOP;
    const previous = ends.get(id);
    ends.set(id, { end: previous ? `${previous.end} and ${end}` : end, attempts: record?.attempts ?? 0, at: record?.deadLetteredAt ?? run.finishedAt });
  }

  const outcomes = new Map<string, Outcome>();
  const seconds = (at: number) => Math.max(0, (at - run.publishedAt) / 1000);
  for (const { id } of workload) {
    const end = ends.get(id);
    const failures = run.retries.filter((retry) => originalToId.get(retry.originalMessageId) === id).sort((a, b) => a.attempt - b.attempt);
    const events: TimelineEvent[] = failures.map((retry) => ({
      atSeconds: seconds(retry.at),
      attempt: retry.attempt,
      outcome: retry.deferredBecause
        ? `${retry.errorType}, deferred ${retry.delaySeconds} s (${retry.deferredBecause === 'rate-limited' ? 'dependency paused' : 'circuit open'})`
        : `${retry.errorType}, retry in ${retry.delaySeconds} s`,
      deferred: retry.deferredBecause !== undefined,
    }));
    if (end) events.push({ atSeconds: seconds(end.at), attempt: end.attempts, outcome: end.end === 'succeeded' ? 'succeeded' : `dead-lettered: ${end.end}` });
    for (let i = 1; i < events.length; i++) events[i]!.waitedSeconds = events[i]!.atSeconds - events[i - 1]!.atSeconds;
    const sqsMessageId = [...originalToId].find(([, demoId]) => demoId === id)?.[0];
    const snsMessageId = run.snsMessageIds[id];
    outcomes.set(id, {
      ...(snsMessageId ? { snsMessageId } : {}),
      ...(sqsMessageId ? { sqsMessageId } : {}),
      end: end?.end ?? 'lost',
      attempts: end?.attempts ?? 0,
      events,
    });
  }
  return outcomes;
}

export function summarize(workload: readonly DemoMessage[], run: DemoRun): { summary: DemoSummary; outcomes: Map<string, Outcome> } {
  const outcomes = outcomesById(workload, run);
  const summary: DemoSummary = {
    published: workload.length,
    succeeded: 0,
    deadLettered: { total: 0, byReason: {} },
    attempts: { histogram: {} },
    retries: run.retries.map(({ errorType, delaySeconds, deferredBecause }) => ({ errorType, delaySeconds, kind: deferredBecause ? 'deferral' : 'retry' })),
    durationSeconds: Math.round((run.finishedAt - run.publishedAt) / 100) / 10,
    lost: [],
    unexpected: [],
    ...(run.fifo ? { fifo: groupOrder(workload, run) } : {}),
  };
  for (const message of workload) {
    const outcome = outcomes.get(message.id)!;
    if (outcome.end === 'lost') {
      summary.lost.push(message.id);
      continue;
    }
    if (outcome.end !== message.expected) summary.unexpected.push({ id: message.id, expected: message.expected, found: outcome.end });
    if (outcome.end === 'succeeded') summary.succeeded++;
    else {
      summary.deadLettered.total++;
      summary.deadLettered.byReason[outcome.end] = (summary.deadLettered.byReason[outcome.end] ?? 0) + 1;
    }
    const key = String(outcome.attempts);
    summary.attempts.histogram[key] = (summary.attempts.histogram[key] ?? 0) + 1;
  }
  return { summary, outcomes };
}

/** Per group, whether its first successes in the ledger come in publish order. */
function groupOrder(workload: readonly DemoMessage[], run: DemoRun): { groups: number; inOrder: number } {
  const groupOf = new Map(workload.map((message) => [message.id, message.group]));
  const groups = [...new Set(workload.map((message) => message.group))];
  const succeeded = [...new Set(run.ledger.map((line) => line.id))];
  const inOrder = groups.filter((group) => {
    const published = workload.filter((message) => message.group === group).map((message) => message.id);
    const done = succeeded.filter((id) => groupOf.get(id) === group);
    return done.every((id, i) => i === 0 || published.indexOf(id) > published.indexOf(done[i - 1]!));
  }).length;
  return { groups: groups.length, inOrder };
}

const pad = (text: string, width: number) => text.padEnd(width);

/**
 * Where to look at the dead letters: the stack the report was made on, while it stays up
 * (`--dashboard`); otherwise how to keep it up, since it stops with the demo.
 */
function deadLetterHint(keptUp: { dlqUrl: string } | undefined): string[] {
  if (!keptUp)
    return [
      "The demo's stack stops with it: `npm run demo -- --dashboard` keeps it up after the run, " +
        'with these dead letters on the dashboard and the commands to list and replay them.',
    ];
  return [
    'While this runs, list them with',
    `  npx requeue dlq list --dlq ${keptUp.dlqUrl}`,
    'and replay the exhausted ones with',
    `  npx requeue dlq replay --dlq ${keptUp.dlqUrl} --reason max-attempts --reset-attempts`,
  ];
}

/** The human report: a few timelines, totals, and the DLQ by reason. */
export function renderReport(workload: readonly DemoMessage[], summary: DemoSummary, outcomes: Map<string, Outcome>, keptUp?: { dlqUrl: string }): string {
  const lines: string[] = ['', 'Timelines (seconds since publishing):'];
  const examples = ['transient-2', 'rate-limited-1', 'quota-1', 'exhausted-1', 'deadline-1', 'permanent-1'];
  for (const id of examples) {
    const message = workload.find((m) => m.id === id);
    const outcome = outcomes.get(id);
    if (!message || !outcome) continue;
    lines.push(`  ${id}  (${message.kind})  SNS ${outcome.snsMessageId ?? '-'} → SQS ${outcome.sqsMessageId ?? '-'}`);
    for (const event of outcome.events) {
      const waited = event.waitedSeconds === undefined ? '' : `   waited ${event.waitedSeconds.toFixed(1)} s`;
      lines.push(`    +${pad(event.atSeconds.toFixed(1), 5)} attempt ${event.attempt}  ${pad(event.outcome, 48)}${waited}`.trimEnd());
    }
  }
  if ([...outcomes.values()].some((o) => o.events.some((e) => e.deferred))) {
    lines.push(
      '',
      '  "deferred": the dependency was paused (a 429 or quota error pauses all its messages until its',
      '  Retry-After or backoff has passed) or its circuit open. The message waits for the dependency,',
      '  not for its own delay, and keeps its attempt.',
    );
  }
  const byType = (kind: 'retry' | 'deferral') => {
    const delays = new Map<string, number[]>();
    for (const retry of summary.retries.filter((r) => r.kind === kind))
      delays.set(retry.errorType, [...(delays.get(retry.errorType) ?? []), retry.delaySeconds]);
    const count = [...delays.values()].reduce((sum, list) => sum + list.length, 0);
    const byType = [...delays].map(([type, list]) => `${type} ${list.length}, delays ${Math.min(...list)}-${Math.max(...list)} s`);
    return `${count}${count ? ` (${byType.join('; ')})` : ''}`;
  };
  lines.push(
    '',
    'Totals:',
    `  published ${summary.published}, succeeded ${summary.succeeded}, ` +
      `dead-lettered ${summary.deadLettered.total}, lost ${summary.lost.length}, in ${summary.durationSeconds} s`,
    `  attempts per message: ${Object.entries(summary.attempts.histogram)
      .map(([attempts, count]) => `${attempts}: ${count}`)
      .join(', ')}`,
    `  retries (an attempt used): ${byType('retry')}`,
    `  deferrals (attempt kept, dependency paused): ${byType('deferral')}`,
    ...(summary.fifo ? [`  FIFO: ${summary.fifo.inOrder} of ${summary.fifo.groups} message groups succeeded in publish order`] : []),
    '',
    'DLQ by reason:',
    ...Object.entries(summary.deadLettered.byReason).map(([reason, count]) => `  ${pad(reason, 20)} ${count}`),
    '',
    ...deadLetterHint(keptUp),
  );
  if (summary.lost.length || summary.unexpected.length) {
    lines.push('', `PROBLEM: lost ${JSON.stringify(summary.lost)}, unexpected ${JSON.stringify(summary.unexpected)}`);
  }
  return lines.join('\n');
}

import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createRetryPolicy, parseRetryPolicyJson, RetryPolicyConfigError, type RetryPolicy } from '@requeue/retry';
import { parseCommandArgs, parseDuration, parsePositiveInteger } from '../args.js';
import { CliError, CliUsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { importLocalAws } from '../local-aws-peer.js';
import { simulationChart, type ChartRun } from './chart.js';
import { parseTrafficProfile, type TrafficProfile } from './profile.js';
import { formatSummaries, summarise, type SimulationSummary } from './report.js';
import { runSimulation } from './run.js';

export const SIMULATE_USAGE = `usage: requeue simulate [--profile <file|JSON>] [--policy <file|JSON>]... [--duration 20m] [--seed N]
                        [--svg <file>] [--json]

Runs the real worker engine on an in-memory SQS in virtual time: your traffic, your
dependency (its time per call, its capacity, its outages, its failures), your worker
settings, under each retry policy given. Prints, per policy: messages succeeded and
dead-lettered by reason, time to success p50/p99, attempts, downstream calls per message
and the peak against capacity, SQS calls and their cost per million messages.

  --profile   the traffic profile (docs/retry-policy.md#simulate-a-policy-before-you-ship-it)
  --policy    a retry policy, as RETRY_POLICY takes it, or \`preset\` for the shipped one;
              repeat to compare policies on the same traffic; default: the shipped preset
  --duration  the traffic's duration, over the profile's (90s, 20m, 1h)
  --seed      the seed of every random draw, over the profile's; a seed gives the same run
  --svg       write a chart over time, a panel per policy
  --json      print one JSON document instead of the table`;

const options = {
  profile: { type: 'string' },
  policy: { type: 'string', multiple: true },
  duration: { type: 'string' },
  seed: { type: 'string' },
  svg: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** A setting given as JSON or as the path of a JSON file; `{ json, name }` with the name the report shows. */
function readJsonArgument(flag: string, value: string): { json: unknown; name: string } {
  const inline = value.trimStart().startsWith('{');
  let text = value;
  if (!inline) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (cause) {
      throw new CliError(`simulate: cannot read ${flag} file ${JSON.stringify(value)}: ${(cause as Error).message}`, 1, { cause });
    }
  }
  try {
    return { json: JSON.parse(text), name: inline ? 'inline' : basename(value) };
  } catch (cause) {
    throw new CliUsageError(`simulate: ${flag} ${inline ? 'JSON' : JSON.stringify(value)} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

function policies(given: readonly string[] = ['preset']): Array<{ name: string; policy: RetryPolicy }> {
  return given.map((value, i) => {
    if (value === 'preset') return { name: 'shipped preset', policy: createRetryPolicy() };
    const { json, name } = readJsonArgument('--policy', value);
    try {
      return { name: name === 'inline' ? `policy ${i + 1}` : name, policy: createRetryPolicy(parseRetryPolicyJson(json)) };
    } catch (cause) {
      if (cause instanceof RetryPolicyConfigError) throw new CliUsageError(`simulate: --policy ${name}: ${cause.message}`, { cause });
      throw cause;
    }
  });
}

function profileFrom(values: { profile?: string; duration?: string; seed?: string }): TrafficProfile {
  const raw = values.profile === undefined ? {} : readJsonArgument('--profile', values.profile).json;
  const profile = parseTrafficProfile(raw);
  if (values.duration !== undefined) profile.durationSeconds = parseDuration('--duration', values.duration) / 1000;
  if (values.seed !== undefined) profile.seed = parsePositiveInteger('--seed', values.seed);
  return profile;
}

export async function runSimulateCommand(argv: string[], io: CliIo): Promise<void> {
  const { values } = parseCommandArgs('simulate', argv, options);
  if (values.help) {
    io.out(SIMULATE_USAGE);
    return;
  }
  const profile = profileFrom(values);
  const chosen = policies(values.policy);
  const { MemorySqs } = await importLocalAws('simulate', () => import('@requeue/local-aws/memory-sqs'));
  const summaries: SimulationSummary[] = [];
  const charted: ChartRun[] = [];
  for (const { name, policy } of chosen) {
    const started = performance.now();
    const run = await runSimulation(profile, policy, MemorySqs);
    summaries.push(summarise(name, profile, run, performance.now() - started));
    charted.push({ policy: name, series: run.series, intervalSeconds: run.intervalSeconds });
  }
  if (values.svg !== undefined) writeFileSync(values.svg, simulationChart(charted, profile.dependency.outages, profile.dependency.capacityPerSecond));
  if (values.json) {
    io.out(
      JSON.stringify({
        profile,
        runs: summaries.map((summary, i) => ({ ...summary, intervalSeconds: charted[i]!.intervalSeconds, series: charted[i]!.series })),
      }),
    );
    return;
  }
  io.out(formatSummaries(summaries));
  if (values.svg !== undefined) io.out(`chart: ${values.svg}`);
}

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliUsageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs, with its errors turned into usage errors naming the command. */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  } catch (cause) {
    throw new CliUsageError(`${command}: ${(cause as Error).message}`);
  }
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "2h", "7d" to milliseconds. */
export function parseDuration(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhd])$/.exec(value.trim());
  if (!match) throw new CliUsageError(`${flag} takes a duration such as 90s, 15m, 2h or 7d, got ${JSON.stringify(value)}`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

export function parsePositiveInteger(flag: string, value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < 1)
    throw new CliUsageError(`${flag} takes a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return parsed;
}

/** "5/s" or "5": messages per second. */
export function parseRate(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(value.trim());
  const rate = match ? Number(match[1]) : NaN;
  if (!(rate > 0)) throw new CliUsageError(`${flag} takes messages per second such as 10/s, got ${JSON.stringify(value)}`);
  return rate;
}

import { outOfRange } from '@requeue/retry/engine';
import type { IntegerLimit, IntegerRange } from '../option-limits.js';
import { WorkerConfigError } from './config-error.js';

/** An environment, such as `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A whole number in `range`, or `fallback` when unset; `range.why` explains the bounds in the error. */
export function integer(env: Env, name: string, range: IntegerRange, fallback: number): number;
/** A whole number in the option's range, or its default when unset. */
export function integer(env: Env, name: string, limit: IntegerLimit): number;
export function integer(env: Env, name: string, { min, max, why = '', ...limit }: IntegerRange & { default?: number }, fallback = limit.default): number {
  const raw = env[name];
  // The overloads give a fallback wherever the range has no default.
  if (raw === undefined || raw === '') return fallback as number;
  // Digits only: Number() would also read "1e3", "0x10" and " ".
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  const problem = outOfRange(value, { min, max });
  if (problem) throw new WorkerConfigError(name, `must be a whole number from ${min} to ${max}${why}, got ${JSON.stringify(raw)}`);
  return value as number;
}

/** A whole number in `range`, or undefined when unset: the engine's default applies. */
export function optionalInteger(env: Env, name: string, range: IntegerRange): number | undefined {
  return env[name] === undefined || env[name] === '' ? undefined : integer(env, name, range, 0);
}

/** `on` or `off` (any case), or `fallback` when unset. */
export function onOff(env: Env, name: string, fallback: 'on' | 'off'): boolean {
  const setting = env[name]?.trim().toLowerCase() || fallback;
  if (setting !== 'on' && setting !== 'off') throw new WorkerConfigError(name, `must be on or off, got ${JSON.stringify(env[name])}`);
  return setting === 'on';
}

/** A number above 0 and at most 1. */
export function fraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\s*(0|1)?(\.\d+)?\s*$/.test(raw) || !Number.isFinite(value) || value <= 0 || value > 1) {
    throw new WorkerConfigError(name, `must be a number above 0 and at most 1, e.g. 0.5, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** An http(s) URL, or undefined when unset. */
export function url(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch (cause) {
    throw new WorkerConfigError(name, `must be an http(s) URL, got ${JSON.stringify(raw)}`, { cause });
  }
  return raw;
}

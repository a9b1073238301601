import { CliUsageError } from '../errors.js';

/** A stream of messages: a steady rate, for all of the run or a stretch of it, from one tenant or none. */
export interface TrafficStream {
  ratePerSecond: number;
  startSeconds: number;
  /** @default the rest of the run */
  durationSeconds: number | undefined;
  /** Sets the `tenant` message attribute; the worker takes turns by it when `worker.tenants` is on. */
  tenant: string | undefined;
}

/** A stretch when every call to the dependency fails: answered 503, or never answered (the handler's timeout ends it). */
export interface Outage {
  startSeconds: number;
  durationSeconds: number;
  answer: '503' | 'timeout';
}

/** What `requeue simulate` runs: the traffic, the dependency the handler calls, the worker fleet and the queue. */
export interface TrafficProfile {
  /** Virtual seconds of traffic; the run then goes on until every message has ended, up to 12 hours more. */
  durationSeconds: number;
  traffic: TrafficStream[];
  /** How long the dependency takes to answer a call. */
  handlerMs: number;
  /** Per message, the chance it fails on every call with a 422 (non-retryable); per call, the chance of a one-off 500. */
  failures: { permanent: number; transient: number };
  dependency: {
    /** Calls it accepts per second; beyond that it answers 429 with `Retry-After`. @default unlimited */
    capacityPerSecond: number | undefined;
    retryAfterSeconds: number;
    outages: Outage[];
  };
  worker: { workers: number; maxInFlight: number; handlerTimeoutMs: number; tenants: boolean };
  queue: { visibilityTimeoutSeconds: number; maxReceiveCount: number };
  seed: number;
}

type Json = Record<string, unknown>;

function fail(path: string, expected: string, got: unknown): never {
  throw new CliUsageError(`simulate: the profile's ${path} must be ${expected}, got ${JSON.stringify(got)}`);
}

function objectAt(parent: Json, key: string, path: string): Json {
  const value = parent[key] ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'an object', value);
  return value as Json;
}

function numberAt(parent: Json, key: string, path: string, range: { min: number; max: number; fallback?: number; whole?: boolean }): number {
  const value = parent[key] ?? range.fallback;
  const ok = typeof value === 'number' && value >= range.min && value <= range.max && (!range.whole || Number.isInteger(value));
  if (!ok) fail(path, `a ${range.whole ? 'whole ' : ''}number from ${range.min} to ${range.max}`, value);
  return value as number;
}

function optionalNumberAt(parent: Json, key: string, path: string, range: { min: number; max: number }): number | undefined {
  return parent[key] === undefined ? undefined : numberAt(parent, key, path, range);
}

function checkKeys(value: Json, path: string, known: readonly string[]): void {
  const unknown = Object.keys(value).find((key) => !known.includes(key));
  if (unknown !== undefined) throw new CliUsageError(`simulate: ${path} has no setting ${JSON.stringify(unknown)}; it takes ${known.join(', ')}`);
}

function arrayAt(parent: Json, key: string, path: string, fallback: unknown[]): Json[] {
  const value = parent[key] ?? fallback;
  if (!Array.isArray(value)) fail(path, 'a list', value);
  return value.map((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) fail(`${path}[${i}]`, 'an object', item);
    return item as Json;
  });
}

const DAY = 86_400;

function trafficStream(raw: Json, path: string): TrafficStream {
  checkKeys(raw, path, ['ratePerSecond', 'startSeconds', 'durationSeconds', 'tenant']);
  const tenant = raw.tenant;
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant.length === 0)) fail(`${path}.tenant`, 'a non-empty string', tenant);
  return {
    ratePerSecond: numberAt(raw, 'ratePerSecond', `${path}.ratePerSecond`, { min: 0.001, max: 10_000 }),
    startSeconds: numberAt(raw, 'startSeconds', `${path}.startSeconds`, { min: 0, max: DAY, fallback: 0 }),
    durationSeconds: optionalNumberAt(raw, 'durationSeconds', `${path}.durationSeconds`, { min: 0.001, max: DAY }),
    tenant: tenant as string | undefined,
  };
}

function outage(raw: Json, path: string): Outage {
  checkKeys(raw, path, ['startSeconds', 'durationSeconds', 'answer']);
  const answer = raw.answer ?? '503';
  if (answer !== '503' && answer !== 'timeout') fail(`${path}.answer`, '"503" or "timeout"', answer);
  return {
    startSeconds: numberAt(raw, 'startSeconds', `${path}.startSeconds`, { min: 0, max: DAY }),
    durationSeconds: numberAt(raw, 'durationSeconds', `${path}.durationSeconds`, { min: 0.001, max: DAY }),
    answer,
  };
}

/** The profile's JSON, checked field by field; what it leaves out takes the defaults `docs/contracts.md` gives. */
export function parseTrafficProfile(json: unknown): TrafficProfile {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('top level', 'a JSON object', json);
  const raw = json as Json;
  checkKeys(raw, 'the profile', ['durationSeconds', 'traffic', 'handlerMs', 'failures', 'dependency', 'worker', 'queue', 'seed']);
  const failures = objectAt(raw, 'failures', 'failures');
  checkKeys(failures, 'failures', ['permanent', 'transient']);
  const dependency = objectAt(raw, 'dependency', 'dependency');
  checkKeys(dependency, 'dependency', ['capacityPerSecond', 'retryAfterSeconds', 'outages']);
  const worker = objectAt(raw, 'worker', 'worker');
  checkKeys(worker, 'worker', ['workers', 'maxInFlight', 'handlerTimeoutMs', 'tenants']);
  const queue = objectAt(raw, 'queue', 'queue');
  checkKeys(queue, 'queue', ['visibilityTimeoutSeconds', 'maxReceiveCount']);
  if (worker.tenants !== undefined && typeof worker.tenants !== 'boolean') fail('worker.tenants', 'true or false', worker.tenants);
  return {
    durationSeconds: numberAt(raw, 'durationSeconds', 'durationSeconds', { min: 1, max: DAY, fallback: 600 }),
    traffic: arrayAt(raw, 'traffic', 'traffic', [{ ratePerSecond: 50 }]).map((stream, i) => trafficStream(stream, `traffic[${i}]`)),
    handlerMs: numberAt(raw, 'handlerMs', 'handlerMs', { min: 0, max: 3_600_000, fallback: 50 }),
    failures: {
      permanent: numberAt(failures, 'permanent', 'failures.permanent', { min: 0, max: 1, fallback: 0 }),
      transient: numberAt(failures, 'transient', 'failures.transient', { min: 0, max: 1, fallback: 0 }),
    },
    dependency: {
      capacityPerSecond: optionalNumberAt(dependency, 'capacityPerSecond', 'dependency.capacityPerSecond', { min: 1, max: 1_000_000 }),
      retryAfterSeconds: numberAt(dependency, 'retryAfterSeconds', 'dependency.retryAfterSeconds', { min: 0, max: 3_600, fallback: 1 }),
      outages: arrayAt(dependency, 'outages', 'dependency.outages', []).map((item, i) => outage(item, `dependency.outages[${i}]`)),
    },
    worker: {
      workers: numberAt(worker, 'workers', 'worker.workers', { min: 1, max: 100, fallback: 1, whole: true }),
      maxInFlight: numberAt(worker, 'maxInFlight', 'worker.maxInFlight', { min: 1, max: 10_000, fallback: 50, whole: true }),
      handlerTimeoutMs: numberAt(worker, 'handlerTimeoutMs', 'worker.handlerTimeoutMs', { min: 1, max: 43_200_000, fallback: 30_000 }),
      tenants: (worker.tenants as boolean | undefined) ?? false,
    },
    queue: {
      visibilityTimeoutSeconds: numberAt(queue, 'visibilityTimeoutSeconds', 'queue.visibilityTimeoutSeconds', {
        min: 1,
        max: 43_200,
        fallback: 30,
        whole: true,
      }),
      maxReceiveCount: numberAt(queue, 'maxReceiveCount', 'queue.maxReceiveCount', { min: 1, max: 1_000, fallback: 5, whole: true }),
    },
    seed: numberAt(raw, 'seed', 'seed', { min: 0, max: 2 ** 31 - 1, fallback: 1, whole: true }),
  };
}

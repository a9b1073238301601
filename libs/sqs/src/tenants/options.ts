import { SqsWorkerConfigError } from '../errors.js';
import { tenantKeyProblem, tenantReader, type TenantKey, type TenantReader } from './tenant-key.js';

/** Fair scheduling across tenants inside the worker (`SqsWorkerOptions.tenants`). */
export interface TenantOptions {
  /** Where each message's tenant is read: `group` (SQS fair queues' MessageGroupId), `attribute.<name>` or `body.<path>`. */
  key: TenantKey;
  /**
   * Handlers one tenant may run while other tenants are active (a message of theirs seen in
   * the last minute): a number, or a share of `maxInFlight` such as `'90%'`. The slots above
   * it stay free for the others' next messages, so they start at once instead of waiting for
   * one of the busy tenant's handlers to end. With one tenant active the cap does not apply.
   * @default no cap: tenants only take turns
   */
  maxInFlight?: number | `${number}%`;
  /**
   * Messages the worker may hold received and not started while more than one tenant was
   * seen in the last minute, instead of `SqsWorkerOptions.prefetch`: enough to read past one
   * tenant's burst to the messages of the others behind it in the queue (SQS fair queues
   * deliver those first themselves; other queues do not). The heartbeat keeps them invisible
   * while they wait; each is a body in memory (at 10 in flight, 300 bodies: 1.2 MB at 4 KB
   * each). With one tenant, `prefetch` applies. @default 30 × maxInFlight
   */
  prefetch?: number;
  /**
   * The tenant values that take turns of their own. Any other value shares one turn with
   * every other unlisted value (`(other)` in metrics and logs). Turns are only as fair as
   * tenant values are honest: a publisher who invents a value per message takes a turn per
   * message, ahead of a real tenant that arrived after the burst. Where publishers choose
   * the values, list the real tenants here. @default every value takes a turn of its own
   */
  values?: readonly string[];
}

/** The one turn every tenant value outside `TenantOptions.values` shares. */
export const OTHER_TENANTS = '(other)';
/** More than this is a mistake (a list of message ids?), and would be slow to match. */
const MAX_TENANT_VALUES = 10_000;

export interface ResolvedTenants {
  read: TenantReader;
  cap: number;
  prefetch: number;
}

/** How many times `maxInFlight` the tenants' prefetch is by default. */
const DEFAULT_PREFETCH_PER_HANDLER = 30;

export function resolveTenants(tenants: TenantOptions | undefined, maxInFlight: number): ResolvedTenants | undefined {
  if (tenants === undefined) return undefined;
  const keyProblem = tenantKeyProblem(tenants.key);
  if (keyProblem) throw new SqsWorkerConfigError('tenants.key', keyProblem);
  const prefetch = tenants.prefetch ?? DEFAULT_PREFETCH_PER_HANDLER * maxInFlight;
  if (!Number.isInteger(prefetch) || prefetch < 0)
    throw new SqsWorkerConfigError('tenants.prefetch', `must be a whole number of at least 0, got ${JSON.stringify(tenants.prefetch)}`);
  return { read: listedOnly(tenantReader(tenants.key), tenants.values), cap: tenantCap(tenants.maxInFlight, maxInFlight), prefetch };
}

/** The reader, with every value off the list read as `OTHER_TENANTS`. */
function listedOnly(read: TenantReader, values: TenantOptions['values']): TenantReader {
  if (values === undefined) return read;
  const valid =
    Array.isArray(values) && values.length > 0 && values.length <= MAX_TENANT_VALUES && values.every((value) => typeof value === 'string' && value !== '');
  if (!valid)
    throw new SqsWorkerConfigError(
      'tenants.values',
      `must list 1 to ${MAX_TENANT_VALUES} tenant values, none empty, got ${JSON.stringify(values).slice(0, 200)}`,
    );
  const listed = new Set(values);
  return (message) => {
    const tenant = read(message);
    return tenant === undefined || listed.has(tenant) ? tenant : OTHER_TENANTS;
  };
}

function tenantCap(cap: TenantOptions['maxInFlight'], maxInFlight: number): number {
  if (cap === undefined) return Number.POSITIVE_INFINITY;
  if (typeof cap === 'number' && Number.isInteger(cap) && cap >= 1) return cap;
  const share = typeof cap === 'string' ? /^(\d+(?:\.\d+)?)%$/.exec(cap) : null;
  const percent = share ? Number(share[1]) : Number.NaN;
  if (percent > 0 && percent <= 100) return Math.max(1, Math.floor((maxInFlight * percent) / 100));
  throw new SqsWorkerConfigError(
    'tenants.maxInFlight',
    `must be a whole number of at least 1 or a share of maxInFlight such as '50%', got ${JSON.stringify(cap)}`,
  );
}

import { SqsWorkerConfigError } from '../errors.js';
import { tenantKeyProblem, tenantReader, type TenantKey, type TenantReader } from './tenant-key.js';

/** Fair scheduling across tenants inside the worker (`SqsWorkerOptions.tenants`). */
export interface TenantOptions {
  /** Where each message's tenant is read: `group` (SQS fair queues' MessageGroupId), `attribute.<name>` or `body.<path>`. */
  key: TenantKey;
  /**
   * Handlers one tenant may run while another tenant's message waits: a number, or a share
   * of `maxInFlight` such as `'50%'`. With no other tenant waiting it runs on, so one tenant
   * alone gets every slot. @default no cap: tenants only take turns
   */
  maxInFlight?: number | `${number}%`;
  /**
   * Messages the worker may hold received and not started while more than one tenant was
   * seen in the last minute, instead of `SqsWorkerOptions.prefetch`: enough to read past one
   * tenant's burst to the messages of the others behind it in the queue. The heartbeat keeps
   * them invisible while they wait; each is a body in memory. With one tenant, `prefetch`
   * applies. @default 10 × maxInFlight
   */
  prefetch?: number;
}

export interface ResolvedTenants {
  read: TenantReader;
  cap: number;
  prefetch: number;
}

/** How many times `maxInFlight` the tenants' prefetch is by default. */
const DEFAULT_PREFETCH_PER_HANDLER = 10;

export function resolveTenants(tenants: TenantOptions | undefined, maxInFlight: number): ResolvedTenants | undefined {
  if (tenants === undefined) return undefined;
  const keyProblem = tenantKeyProblem(tenants.key);
  if (keyProblem) throw new SqsWorkerConfigError('tenants.key', keyProblem);
  const prefetch = tenants.prefetch ?? DEFAULT_PREFETCH_PER_HANDLER * maxInFlight;
  if (!Number.isInteger(prefetch) || prefetch < 0) throw new SqsWorkerConfigError('tenants.prefetch', `must be a whole number of at least 0, got ${JSON.stringify(tenants.prefetch)}`);
  return { read: tenantReader(tenants.key), cap: tenantCap(tenants.maxInFlight, maxInFlight), prefetch };
}

function tenantCap(cap: TenantOptions['maxInFlight'], maxInFlight: number): number {
  if (cap === undefined) return Number.POSITIVE_INFINITY;
  if (typeof cap === 'number' && Number.isInteger(cap) && cap >= 1) return cap;
  const share = typeof cap === 'string' ? /^(\d+(?:\.\d+)?)%$/.exec(cap) : null;
  const percent = share ? Number(share[1]) : Number.NaN;
  if (percent > 0 && percent <= 100) return Math.max(1, Math.floor((maxInFlight * percent) / 100));
  throw new SqsWorkerConfigError('tenants.maxInFlight', `must be a whole number of at least 1 or a share of maxInFlight such as '50%', got ${JSON.stringify(cap)}`);
}

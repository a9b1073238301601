import type { Message } from '@aws-sdk/client-sqs';
import { RETRY_STATE_ATTRIBUTE } from '@requeue/retry/engine';

/** One tenant's share of a metrics interval (`WorkerMetrics.tenants`). */
export interface TenantLoad {
  /** The tenant's key; `''` for messages whose key names none. */
  tenant: string;
  /**
   * The longest dwell (sent → handler start) of its messages started in the interval, or the
   * age of its oldest message still waiting, whichever is longer; ms.
   */
  maxDwellMs: number;
  /** Its handlers running at the flush. */
  inFlight: number;
}

/** What a flush publishes about tenants: the worst-served few, and the worst dwell of all. */
export interface TenantsSnapshot {
  /** At most `TOP_TENANTS`, longest dwell first: a bounded set of `Tenant` dimension values. */
  top: TenantLoad[];
  /** The longest dwell of any tenant in the interval (the alarm's metric); 0 when nothing started or waited. */
  worstDwellMs: number;
}

/** Tenants published per flush: enough to name the starved ones, few enough to keep CloudWatch's metric count bounded. */
export const TOP_TENANTS = 5;
/** Tenants tracked per interval; beyond that, a new tenant counts toward the worst dwell only. */
const MAX_TRACKED = 1_000;

/** Dwell per tenant over one metrics interval, taken (and reset) at each flush. */
export class TenantDwell {
  private longest = new Map<string, number>();
  private worst = 0;

  /** A message of `tenant` started `dwellMs` after it was sent. */
  started(tenant: string, dwellMs: number): void {
    const dwell = Math.max(0, dwellMs);
    if (dwell > this.worst) this.worst = dwell;
    const known = this.longest.get(tenant);
    if (known !== undefined) {
      if (dwell > known) this.longest.set(tenant, dwell);
    } else if (this.longest.size < MAX_TRACKED) this.longest.set(tenant, dwell);
  }

  /**
   * The interval's snapshot, with the tenants' running handlers and the sent time of their
   * oldest waiting message (a tenant that never got a slot shows here by its wait so far).
   */
  take(now: number, load: ReadonlyMap<string, { running: number; oldestSentAt: number | undefined }>): TenantsSnapshot {
    const longest = this.longest;
    let worst = this.worst;
    this.longest = new Map();
    this.worst = 0;
    const all = new Map<string, TenantLoad>();
    for (const [tenant, maxDwellMs] of longest) all.set(tenant, { tenant, maxDwellMs, inFlight: 0 });
    for (const [tenant, { running, oldestSentAt }] of load) {
      const waited = oldestSentAt === undefined ? 0 : Math.max(0, now - oldestSentAt);
      const entry = all.get(tenant) ?? { tenant, maxDwellMs: 0, inFlight: 0 };
      entry.inFlight = running;
      entry.maxDwellMs = Math.max(entry.maxDwellMs, waited);
      worst = Math.max(worst, waited);
      all.set(tenant, entry);
    }
    const top = [...all.values()].sort((a, b) => b.maxDwellMs - a.maxDwellMs || b.inFlight - a.inFlight).slice(0, TOP_TENANTS);
    return { top, worstDwellMs: worst };
  }
}

/**
 * When SQS took the message (SentTimestamp), where its dwell counts from; undefined on a
 * retry copy, whose send time includes the backoff it was given on purpose.
 */
export function dwellSince(message: Message): number | undefined {
  const sent = Number(message.Attributes?.SentTimestamp);
  return Number.isFinite(sent) && !message.MessageAttributes?.[RETRY_STATE_ATTRIBUTE] ? sent : undefined;
}

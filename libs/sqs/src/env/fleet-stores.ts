import type { AttributeValue, DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';

import { isCurrentReport, type FleetMemberState, type FleetStateStore } from '../backpressure/fleet-state.js';
import type { RedisConnection } from './redis-connection.js';

const REDIS_KEY_PREFIX = 'requeue:fleet:';
const DYNAMODB_ITEM_PREFIX = 'fleet#';
const DYNAMODB_MEMBER_PREFIX = 'm:';
/** A dependency's item outlives its last report by an hour, then DynamoDB's TTL removes it. */
const DYNAMODB_ITEM_TTL_SECONDS = 3600;

/** Reports that do not parse are dropped here; the engine checks the rest field by field. */
function parsed(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** Reports the engine would not trust: unreadable, stale, or from further in the future than staleMs (a forged or fast clock, never stale otherwise). */
function staleIds(reports: ReadonlyMap<string, unknown>, self: FleetMemberState, staleMs: number): string[] {
  const old = (report: unknown) =>
    typeof report !== 'object' || report === null || !isCurrentReport(Number((report as { seenAt?: unknown }).seenAt), self.seenAt, staleMs);
  return [...reports].filter(([id, report]) => id !== self.workerId && old(report)).map(([id]) => id);
}

/**
 * One hash per dependency, a field per worker. Set, expire and read in one MULTI; the
 * fields of workers gone (stale or unreadable) are deleted after.
 */
export class RedisFleetStore implements FleetStateStore {
  constructor(private readonly client: RedisConnection) {}

  async exchange(dependency: string, state: FleetMemberState, staleMs: number): Promise<readonly unknown[]> {
    const key = REDIS_KEY_PREFIX + dependency;
    const [, , fields] = await this.client
      .multi()
      .hSet(key, state.workerId, JSON.stringify(state))
      .pExpire(key, 2 * staleMs)
      .hGetAll(key)
      .exec();
    const reports = new Map(Object.entries(fields as unknown as Record<string, string>).map(([id, json]) => [id, parsed(json)]));
    const gone = staleIds(reports, state, staleMs);
    if (gone.length > 0) await this.client.hDel(key, gone);
    return [...reports.values()];
  }
}

/**
 * One item per dependency (`id` = `fleet#<dependency>`, the idempotency table's schema, so
 * one table can hold both), an attribute per worker. One UpdateItem writes this worker's
 * report, removes those found stale last time, and returns the item.
 */
export class DynamoDbFleetStore implements FleetStateStore {
  private readonly gone = new Map<string, string[]>();

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    /** The SDK's UpdateItemCommand, from the app's own `@aws-sdk/client-dynamodb` (an optional peer). */
    private readonly UpdateItem: typeof UpdateItemCommand,
  ) {}

  async exchange(dependency: string, state: FleetMemberState, staleMs: number): Promise<readonly unknown[]> {
    const remove = (this.gone.get(dependency) ?? []).filter((id) => id !== state.workerId);
    const names: Record<string, string> = { '#me': DYNAMODB_MEMBER_PREFIX + state.workerId, '#expiration': 'expiration' };
    remove.forEach((id, i) => (names[`#gone${i}`] = DYNAMODB_MEMBER_PREFIX + id));
    const response = await this.client.send(
      new this.UpdateItem({
        TableName: this.tableName,
        Key: { id: { S: DYNAMODB_ITEM_PREFIX + dependency } },
        UpdateExpression: `SET #me = :state, #expiration = :expiration${remove.length > 0 ? ' REMOVE ' + remove.map((_, i) => `#gone${i}`).join(', ') : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':state': { S: JSON.stringify(state) },
          ':expiration': { N: String(Math.ceil(state.seenAt / 1000) + DYNAMODB_ITEM_TTL_SECONDS) },
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const reports = memberReports(response.Attributes ?? {});
    this.gone.set(dependency, staleIds(reports, state, staleMs));
    return [...reports.values()];
  }
}

function memberReports(item: Record<string, AttributeValue>): Map<string, unknown> {
  const reports = new Map<string, unknown>();
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(DYNAMODB_MEMBER_PREFIX) && value.S !== undefined) reports.set(name.slice(DYNAMODB_MEMBER_PREFIX.length), parsed(value.S));
  }
  return reports;
}

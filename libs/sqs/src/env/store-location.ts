import { WorkerConfigError } from './config-error.js';

/** A Redis (or Valkey) server, or a DynamoDB table, named by one setting. */
export type StoreLocation = { store: 'redis'; url: string } | { store: 'dynamodb'; tableName: string };

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/** Reads `redis://host:port`, `rediss://…` or `dynamodb:<table>` from the setting `name`. */
export function storeLocation(name: string, raw: string): StoreLocation {
  const expected = `must be off, redis://host:port or dynamodb:<table>, got ${JSON.stringify(raw)}`;
  if (raw.startsWith('dynamodb:')) {
    const tableName = raw.slice('dynamodb:'.length);
    if (!TABLE_NAME.test(tableName))
      throw new WorkerConfigError(name, `names a DynamoDB table that cannot exist: ${JSON.stringify(tableName)} (3-255 of letters, digits, _ - .)`);
    return { store: 'dynamodb', tableName };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch (cause) {
    throw new WorkerConfigError(name, expected, { cause });
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new WorkerConfigError(name, expected);
  return { store: 'redis', url: raw };
}

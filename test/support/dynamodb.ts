import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { afterAll, beforeAll } from 'vitest';

export interface LocalDynamoDb {
  endpoint: string;
  client: DynamoDBClient;
  /** Creates an idempotency table as the stack does: partition key `id`, TTL on `expiration`. */
  createIdempotencyTable(): Promise<string>;
  stop(): Promise<void>;
}

let tables = 0;

/** dynalite, a DynamoDB implementation from npm, in memory on 127.0.0.1; its tables are active as soon as they are created. */
export async function startDynamoDb(): Promise<LocalDynamoDb> {
  const server: Server = dynalite({ createTableMs: 0 });
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', () => resolve()).once('error', reject));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  return {
    endpoint,
    client,
    async createIdempotencyTable() {
      const TableName = `idempotency-${tables++}`;
      await client.send(
        new CreateTableCommand({
          TableName,
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      return TableName;
    },
    async stop() {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** dynalite for a test file: started before its tests, stopped after them. Read it inside a test. */
export function dynamoDbForSuite(): () => LocalDynamoDb {
  let db: LocalDynamoDb | undefined;
  beforeAll(async () => {
    db = await startDynamoDb();
  });
  afterAll(async () => {
    await db?.stop();
  });
  return () => {
    if (!db) throw new Error('dynalite starts in beforeAll: use it inside a test');
    return db;
  };
}

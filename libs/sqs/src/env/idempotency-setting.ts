import { WorkerConfigError } from './config-error.js';
import { storeLocation, type StoreLocation } from './store-location.js';

/** Where the idempotency records live (WORKER_IDEMPOTENCY), and which key a duplicate shares (WORKER_IDEMPOTENCY_KEY). */
export type IdempotencySetting =
  | { store: 'off' }
  | (StoreLocation & {
      /** Which key duplicates share. */
      key: IdempotencyKeySource;
      /** Whether a reused key must come with the same body (WORKER_IDEMPOTENCY_VALIDATE_PAYLOAD). */
      validatePayload: boolean;
    });

/** The message's own idempotency key, or a path into the JSON body such as `["id"]` for `body.id`. */
export type IdempotencyKeySource = { from: 'message' } | { from: 'body'; path: string[] };

/** Reads WORKER_IDEMPOTENCY (`off`, `redis://host:port`, `rediss://…`, `dynamodb:<table>`) and WORKER_IDEMPOTENCY_KEY. */
export function idempotencySetting(env: Readonly<Record<string, string | undefined>>): IdempotencySetting {
  const raw = env.WORKER_IDEMPOTENCY?.trim() || 'off';
  if (raw === 'off') return { store: 'off' };
  const guarding = {
    key: keySource(env.WORKER_IDEMPOTENCY_KEY?.trim() || 'message'),
    validatePayload: validatePayload(env.WORKER_IDEMPOTENCY_VALIDATE_PAYLOAD),
  };
  return { ...storeLocation('WORKER_IDEMPOTENCY', raw), ...guarding };
}

function validatePayload(raw: string | undefined): boolean {
  const setting = raw?.trim().toLowerCase() || 'off';
  if (setting !== 'on' && setting !== 'off')
    throw new WorkerConfigError('WORKER_IDEMPOTENCY_VALIDATE_PAYLOAD', `must be on or off, got ${JSON.stringify(raw)}`);
  return setting === 'on';
}

function keySource(raw: string): IdempotencyKeySource {
  if (raw === 'message') return { from: 'message' };
  const path = raw.split('.');
  if (path[0] !== 'body' || path.length < 2 || path.some((part) => part === '')) {
    throw new WorkerConfigError('WORKER_IDEMPOTENCY_KEY', `must be message or a path into the body such as body.id, got ${JSON.stringify(raw)}`);
  }
  return { from: 'body', path: path.slice(1) };
}

/**
 * The key of a message under this source: a non-empty string or a number at the path.
 * A body without one throws, and the engine dead-letters the message rather than run it unguarded.
 */
export function keyAt(source: IdempotencyKeySource, message: { body: unknown; idempotencyKey: string }): string {
  if (source.from === 'message') return message.idempotencyKey;
  let value: unknown = message.body;
  for (const part of source.path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  if ((typeof value === 'string' && value !== '') || typeof value === 'number') return String(value);
  throw new Error(`the body has no idempotency key at body.${source.path.join('.')} (a non-empty string or a number)`);
}

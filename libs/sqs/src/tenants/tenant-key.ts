import type { Arrival } from '../message/arrival.js';

/**
 * Where a message's tenant is read: `group` (the MessageGroupId, SQS fair queues' key),
 * `attribute.<name>` (a String message attribute) or `body.<path>` (a string or number in
 * the JSON body). Attributes and the body are read inside an SNS envelope too.
 */
export type TenantKey = 'group' | `attribute.${string}` | `body.${string}`;

/** Reads a message's tenant; undefined when it names none (those share one tenant). */
export type TenantReader = (arrival: Arrival) => string | undefined;

/** The problem with a key, or undefined when it is one of the three forms. */
export function tenantKeyProblem(key: unknown): string | undefined {
  if (key === 'group') return undefined;
  if (typeof key === 'string') {
    // An attribute's name may itself contain dots; a body path may not have empty parts.
    if (key.startsWith('attribute.') && key.length > 'attribute.'.length) return undefined;
    if (
      key.startsWith('body.') &&
      key
        .slice('body.'.length)
        .split('.')
        .every((part) => part !== '')
    )
      return undefined;
  }
  return `must be group, attribute.<name> or body.<path> (such as body.customerId), got ${JSON.stringify(key)}`;
}

export function tenantReader(key: TenantKey): TenantReader {
  if (key === 'group') return ({ message }) => message.Attributes?.MessageGroupId || undefined;
  const [source, ...rest] = key.split('.');
  if (source === 'attribute') {
    const name = rest.join('.');
    return (arrival) => {
      const unwrapped = arrival.unwrapped;
      const attributes = unwrapped.kind === 'invalid-envelope' ? (arrival.message.MessageAttributes ?? {}) : unwrapped.attributes;
      return attributes[name]?.StringValue || undefined;
    };
  }
  return (arrival) => valueAt(bodyOf(arrival), rest);
}

/** The body inside any envelope, parsed once: the decode takes this parse instead of its own. */
function bodyOf(arrival: Arrival): unknown {
  const unwrapped = arrival.unwrapped;
  return unwrapped.kind === 'invalid-envelope' ? undefined : arrival.body(unwrapped.payload);
}

function valueAt(body: unknown, path: string[]): string | undefined {
  let value = body;
  for (const part of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

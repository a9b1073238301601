/**
 * Handlers can throw anything, including objects whose getters throw. Classification
 * must be total, so every property read on a thrown value goes through here.
 */
export function readProperty(value: unknown, key: string): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

export function readString(value: unknown, key: string): string | undefined {
  const found = readProperty(value, key);
  return typeof found === 'string' ? found : undefined;
}

/** `String(value)` that never throws, for values whose `toString` is hostile. */
export function describeThrown(value: unknown): string {
  try {
    if (typeof value === 'string') return value;
    const message = readString(value, 'message');
    if (message !== undefined) return message;
    return String(value);
  } catch {
    return '[unprintable thrown value]';
  }
}

/** Error-ness that survives realms (vm, workers) where `instanceof Error` fails. */
export function isErrorLike(value: unknown): value is Error {
  try {
    return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
  } catch {
    return false;
  }
}

/** The names of a value's class and every ancestor class, nearest first. */
export function classNames(value: unknown): string[] {
  const names: string[] = [];
  try {
    const own = readString(value, 'name');
    if (own) names.push(own);
    let proto: unknown = Object.getPrototypeOf(value);
    for (let depth = 0; proto && depth < 16; depth++) {
      const ctor = readProperty(proto, 'constructor');
      const name = readString(ctor, 'name');
      if (name) names.push(name);
      proto = Object.getPrototypeOf(proto);
    }
  } catch {
    // A Proxy may throw from getPrototypeOf; the names found so far are still useful.
  }
  return names;
}

import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { ConfigError } from './errors.js';
import { encodeRetryState, type RetryState } from './retry-state.js';

/** Shorter keys can be guessed; 32 characters of a random string carry well over 128 bits. */
export const MIN_RETRY_STATE_KEY_LENGTH = 32;

/**
 * Authenticates `x-retry`: the worker writes it with an HMAC-SHA256 (`mac`) over its other
 * fields and the digest of the message it travels with (`messageDigest` in `@requeue/sqs`:
 * the body and the publisher's attributes), and trusts what a message claims about its
 * identity (`originalMessageId`, the idempotency key) only when the MAC checks out. A
 * publisher can write `x-retry` too, but cannot compute the MAC without the key, and a
 * genuine state moved onto another body does not verify: no message can borrow another's
 * identity.
 *
 * Keys: the first signs, every one verifies. A rolling rotation takes three deployments:
 * `old,new` (every task verifies the new key before any signs with it), then `new,old`,
 * then `new` once the retries the old key signed are gone (the longest deadline, 24 h by
 * default). Every worker of a queue needs the same keys.
 */
export class RetryStateSigner {
  /** Imported once: an HMAC made from a key object skips copying the key in every call. */
  private readonly keys: KeyObject[];

  constructor(keys: readonly string[]) {
    if (keys.length === 0) throw new ConfigError('retryStateKeys', 'is empty: give at least one key, the same on every worker of the queue');
    for (const [index, key] of keys.entries()) {
      if (key.length < MIN_RETRY_STATE_KEY_LENGTH) {
        throw new ConfigError(
          'retryStateKeys',
          `key ${index + 1} has ${key.length} characters; use at least ${MIN_RETRY_STATE_KEY_LENGTH} random ones (for example: openssl rand -base64 48)`,
        );
      }
    }
    this.keys = keys.map((key) => createSecretKey(Buffer.from(key, 'utf8')));
  }

  /** A random key of this process only: retries this process signs are trusted by it alone. */
  static ephemeral(): RetryStateSigner {
    return new RetryStateSigner([randomBytes(32).toString('base64url')]);
  }

  /** `x-retry` as the worker writes it on the message whose digest is `messageDigest`: the state with its MAC. */
  sign(state: RetryState, messageDigest: string): string {
    const encoded = encodeRetryState(withoutMac(state));
    const mac = this.mac(this.keys[0]!, encoded, messageDigest).toString('base64url');
    // `encodeRetryState` writes `mac` last, and base64url needs no escaping: the MAC is
    // appended to the text it was computed over rather than the state encoded again.
    return `${encoded.slice(0, -1)},"mac":"${mac}"}`;
  }

  /** Whether the state's MAC was made with one of the keys over exactly these fields and this message. */
  verifies(state: RetryState, messageDigest: string): boolean {
    if (state.mac === undefined) return false;
    const claimed = Buffer.from(state.mac, 'base64url');
    const encoded = encodeRetryState(withoutMac(state));
    return this.keys.some((key) => {
      const expected = this.mac(key, encoded, messageDigest);
      return claimed.length === expected.length && timingSafeEqual(claimed, expected);
    });
  }

  private mac(key: KeyObject, encodedUnsigned: string, messageDigest: string): Buffer {
    // The newline cannot occur in the encoded state (JSON escapes it), so the two parts cannot shift into each other.
    return createHmac('sha256', key).update(encodedUnsigned).update('\n').update(messageDigest).digest();
  }
}

function withoutMac(state: RetryState): RetryState {
  const { mac: _mac, ...unsigned } = state;
  return unsigned;
}

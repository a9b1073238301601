/**
 * An error's text with what varies from one message to the next masked, so the dead
 * letters of one cause share it: URLs (their host kept apart as the dependency), UUIDs,
 * long hex runs (ids, hashes), e-mail addresses and numbers. Whitespace is collapsed and
 * the result is at most 200 characters.
 */
export function errorFingerprint(error: string): string {
  return readPart(error)
    .replace(URL_PATTERN, '<url>')
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '<email>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, '<id>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/** A URL, without the punctuation that may follow it in a sentence. */
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]*[^\s"'<>).,:;]/gi;

/**
 * The characters of an error these read: its start. A dead letter's error is anyone's to
 * write, and masking patterns scan ahead from each position, so a long text of the
 * right shape (`a.a.a.…`) would take time quadratic in its length; a bounded start keeps
 * every read linear, and holds the 200 characters a fingerprint keeps.
 */
export const FINGERPRINT_READS = 1000;

function readPart(error: string): string {
  return error.length > FINGERPRINT_READS ? error.slice(0, FINGERPRINT_READS) : error;
}

/** The host of the first URL in an error's text: the dependency that failed, as far as the text says. */
export function dependencyOf(error: string): string | undefined {
  for (const [url] of readPart(error).matchAll(URL_PATTERN)) {
    try {
      return new URL(url).host || undefined;
    } catch {
      // Not a URL after all: try the next.
    }
  }
  return undefined;
}

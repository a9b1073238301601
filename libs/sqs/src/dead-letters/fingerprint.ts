/**
 * An error's text with what varies from one message to the next masked, so the dead
 * letters of one cause share it: URLs (their host kept apart as the dependency), UUIDs,
 * long hex runs (ids, hashes), e-mail addresses and numbers. Whitespace is collapsed and
 * the result is at most 200 characters.
 */
export function errorFingerprint(error: string): string {
  return error
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

/** The host of the first URL in an error's text: the dependency that failed, as far as the text says. */
export function dependencyOf(error: string): string | undefined {
  for (const [url] of error.matchAll(URL_PATTERN)) {
    try {
      return new URL(url).host || undefined;
    } catch {
      // Not a URL after all: try the next.
    }
  }
  return undefined;
}

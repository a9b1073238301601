import { createRequire } from 'node:module';

/**
 * An optional peer the app did not install, needed by a feature it configured. The message
 * names the feature and the install line.
 */
export class MissingPeerError extends Error {
  constructor(
    /** The packages to install. */
    readonly packages: readonly string[],
    /** The setting or option that needs them. */
    readonly feature: string,
    options?: { cause?: unknown },
  ) {
    super(`${feature} needs ${packages.join(' and ')}, which ${packages.length > 1 ? 'are' : 'is'} not installed: npm install ${packages.join(' ')}`, options);
    this.name = 'MissingPeerError';
  }
}

// require, not import(): loading stays synchronous, so the package needs no top-level
// await and CommonJS apps can still require() it (Node >= 22.12 loads ESM that way only
// without top-level await).
const requirePeer = createRequire(import.meta.url);

/** Whether `error` says `name` itself is missing, as opposed to a broken install of it. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String((error as Error).message).includes(`'${name}'`);
}

/** The peer `name` when installed; undefined when it is not. Any other failure to load it is thrown. */
export function optionalPeer<T>(name: string, load: (name: string) => unknown = requirePeer): T | undefined {
  try {
    return load(name) as T;
  } catch (error) {
    if (isMissing(error, name)) return undefined;
    throw error;
  }
}

/** The package of a specifier: `@scope/name` of `@scope/name/subpath`, `name` of `name/subpath`. */
function packageOf(specifier: string): string {
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/** The peer `name` (a package or a subpath of one), which `feature` cannot work without: a clear MissingPeerError when it is not installed. */
export function requiredPeer<T>(name: string, feature: string, alongside: readonly string[] = [], load?: (name: string) => unknown): T {
  const peer = optionalPeer<T>(name, load);
  if (peer === undefined) throw new MissingPeerError([packageOf(name), ...alongside], feature);
  return peer;
}

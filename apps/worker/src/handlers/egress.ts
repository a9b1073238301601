import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { NonRetryableError } from '@requeue/retry';

/**
 * Addresses a webhook must not reach unless an operator allows the host: this machine,
 * private networks, link-local (169.254.169.254 and 169.254.170.2 serve cloud
 * credentials), carrier-grade NAT, unique-local IPv6, and the unspecified, multicast and
 * reserved ranges. A publisher chooses the URL; without this, one message makes the
 * worker call anything the worker can reach.
 */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

/** The webhook's target was refused before any connection: a dead letter, never a retry. */
export class EgressRefusedError extends NonRetryableError {
  constructor(message: string) {
    super(message, { errorType: 'EGRESS_REFUSED' });
    this.name = 'EgressRefusedError';
  }
}

/** Whether `address` (a literal IPv4 or IPv6 address) is internal; IPv4-mapped IPv6 is judged as its IPv4. */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Hosts an operator allows although they are internal: `host` or `host:port`, as in WEBHOOK_ALLOW_HOSTS. */
export class EgressPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowHosts: readonly string[]) {
    this.allowed = new Set(allowHosts.map((entry) => entry.toLowerCase()));
  }

  allows(hostname: string, port: string): boolean {
    const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    return this.allowed.has(host) || this.allowed.has(`${host}:${port}`) || this.allowed.has(`[${host}]:${port}`);
  }

  /** Whether `url` names an internal IP address that no allowance covers: refused before any lookup. */
  refusesLiteral(url: URL): boolean {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return isIP(host) !== 0 && isInternalAddress(host) && !this.allows(url.hostname, portOf(url));
  }

  /** Refuses a literal internal address up front: a connection to an IP address does no lookup. */
  checkLiteral(url: URL): void {
    if (this.refusesLiteral(url)) {
      throw new EgressRefusedError(`webhook target ${url.host} is an internal address; allow it with WEBHOOK_ALLOW_HOSTS if it is meant`);
    }
  }

  /**
   * A `lookup` for http.request: resolves the name, refuses it when any address it
   * resolves to is internal, and hands the connection the very address it checked, so a
   * DNS answer that changes between the check and the connect cannot slip through.
   */
  lookupFor(url: URL): LookupFunction {
    const allowed = this.allows(url.hostname, portOf(url));
    return (hostname, options, callback: LookupCallback) => {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
      dnsLookup(hostname, { all: true, family }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, options.all ? [] : '', 0);
        const internal = addresses.find((entry) => isInternalAddress(entry.address));
        if (internal && !allowed) {
          return callback(
            new EgressRefusedError(
              `webhook host ${hostname} resolves to an internal address (${internal.address}); allow it with WEBHOOK_ALLOW_HOSTS if it is meant`,
            ),
            options.all ? [] : '',
            0,
          );
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0]!;
        return callback(null, first.address, first.family);
      });
    };
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

import { Token } from 'aws-cdk-lib';
import type { TenantOptions } from '@requeue/sqs';
import { InfraConfigError } from './errors.js';
import { wholeNumber } from './validation.js';

/**
 * The key forms the worker accepts (it checks again at start, naming WORKER_TENANT_KEY):
 * `group`, `attribute.<name>`, or `body.<path>` with no empty part.
 */
const TENANT_KEY = /^(group|attribute\..+|body\.[^.]+(\.[^.]+)*)$/;

/** `QueueWorkerServiceProps.tenants` as the worker's environment, checked at synth. */
export function tenantEnvironment(tenants: TenantOptions | undefined, maxInFlight: number): Record<string, string> {
  if (tenants === undefined) return {};
  if (!TENANT_KEY.test(tenants.key))
    throw new InfraConfigError('tenants.key', `must be group, attribute.<name> or body.<path>, got ${JSON.stringify(tenants.key)}`);
  const environment: Record<string, string> = { WORKER_TENANT_KEY: tenants.key };
  const cap = tenants.maxInFlight;
  if (typeof cap === 'number')
    environment.WORKER_TENANT_MAX_IN_FLIGHT = String(wholeNumber('tenants.maxInFlight', cap, 1, Token.isUnresolved(maxInFlight) ? 10_000 : maxInFlight));
  else if (cap !== undefined) {
    const percent = Number(/^(\d+(?:\.\d+)?)%$/.exec(cap)?.[1]);
    if (!(percent > 0 && percent <= 100))
      throw new InfraConfigError('tenants.maxInFlight', `must be a whole number or a share of maxInFlight such as '50%', got ${JSON.stringify(cap)}`);
    environment.WORKER_TENANT_MAX_IN_FLIGHT = cap;
  }
  if (tenants.prefetch !== undefined) environment.WORKER_TENANT_PREFETCH = String(wholeNumber('tenants.prefetch', tenants.prefetch, 0, 100_000));
  if (tenants.values !== undefined) environment.WORKER_TENANT_VALUES = tenantValues(tenants.values);
  return environment;
}

/** The listed tenants as WORKER_TENANT_VALUES: comma-separated, so no value may hold a comma. */
function tenantValues(values: readonly string[]): string {
  if (values.length === 0 || values.some((value) => value.trim() === '' || value.includes(',') || value.trim() !== value)) {
    const got = JSON.stringify(values).slice(0, 200);
    throw new InfraConfigError('tenants.values', `must list at least one tenant value, none empty, with no comma or surrounding space, got ${got}`);
  }
  return values.join(',');
}

/**
 * The CloudWatch EMF metrics the worker writes, and the stack's alarms and dashboard read
 * (docs/contracts.md, section 6). One list for both sides: a renamed metric fails to
 * compile where it is read, instead of leaving an alarm on a metric nobody writes.
 * Its own entry point (`@requeue/sqs/metric-names`), so a CDK app imports it without the engine.
 */
export const MetricName = {
  received: 'MessagesReceived',
  succeeded: 'MessagesSucceeded',
  retried: 'MessagesRetried',
  deadLettered: 'MessagesDeadLettered',
  deadLetteredWithoutReason: 'DeadLettersWithoutReason',
  deferred: 'MessagesDeferred',
  firstFailures: 'FirstFailures',
  duplicateRisk: 'DuplicateRisk',
  attemptsToSuccess: 'AttemptsToSuccess',
  handlerDuration: 'HandlerDuration',
  retryDelay: 'RetryDelay',
  breakerOpen: 'BreakerOpen',
  concurrencyLimit: 'ConcurrencyLimit',
  tenantDwell: 'TenantDwell',
  tenantInFlight: 'TenantInFlight',
  worstTenantDwell: 'WorstTenantDwell',
} as const;

/** The dimensions the worker publishes beside `Queue`. */
export const MetricDimension = {
  queue: 'Queue',
  errorType: 'ErrorType',
  reason: 'Reason',
  dependency: 'Dependency',
  tenant: 'Tenant',
} as const;

import type { TemplateResolver } from './resolve.js';
import { LocalProvisioningError, type CloudFormationTemplate } from './template.js';

/** An ECS container's or a Lambda function's environment as the stack sets it, with the values that exist locally. */
export interface ContainerEnvironment {
  /** `<task definition logical id>/<container name>`, or the function's logical id. */
  container: string;
  /** Whether it is an ECS task's container or a Lambda function (`QueueWorkerFunction`). */
  kind: 'container' | 'function';
  /** The variables whose values resolve here: the queue URLs, the retry policy, the limits. */
  environment: Record<string, string>;
  /**
   * Variables left out, because their values name something with no local counterpart (a
   * DynamoDB table, a secret, a log group): set them yourself if your app needs them.
   */
  notLocal: string[];
}

interface ContainerDefinition {
  Name?: unknown;
  Environment?: Array<{ Name?: unknown; Value?: unknown }>;
  Secrets?: Array<{ Name?: unknown }>;
}

/**
 * Each task definition container's and each Lambda function's environment, resolved
 * against the resources provisioned locally: what the worker or the function would read.
 */
export function containerEnvironments(template: CloudFormationTemplate, resolver: TemplateResolver): ContainerEnvironment[] {
  const found: ContainerEnvironment[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::Lambda::Function') {
      const variables = ((resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<string, unknown>;
      found.push({ container: logicalId, kind: 'function', ...resolved(Object.entries(variables), resolver, `${logicalId}.Environment.Variables`, []) });
      continue;
    }
    if (resource.Type !== 'AWS::ECS::TaskDefinition') continue;
    const definitions = (resource.Properties?.ContainerDefinitions ?? []) as ContainerDefinition[];
    definitions.forEach((definition, index) => {
      const name = typeof definition.Name === 'string' ? definition.Name : String(index);
      const variables = (definition.Environment ?? []).map((variable): [string, unknown] => [String(variable.Name), variable.Value]);
      const secrets = (definition.Secrets ?? []).map((secret) => String(secret.Name));
      found.push({
        container: `${logicalId}/${name}`,
        kind: 'container',
        ...resolved(variables, resolver, `${logicalId}.ContainerDefinitions.${name}.Environment`, secrets),
      });
    });
  }
  return found;
}

/** The variables whose values resolve here, and the names of the rest (with `notLocal` already known). */
function resolved(
  variables: Array<[string, unknown]>,
  resolver: TemplateResolver,
  path: string,
  notLocal: string[],
): Pick<ContainerEnvironment, 'environment' | 'notLocal'> {
  const environment: Record<string, string> = {};
  for (const [name, value] of variables) {
    try {
      environment[name] = resolver.resolveString(value, `${path}.${name}`);
    } catch (error) {
      if (!(error instanceof LocalProvisioningError)) throw error;
      notLocal.push(name);
    }
  }
  return { environment, notLocal: notLocal.sort() };
}

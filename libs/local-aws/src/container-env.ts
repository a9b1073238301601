import type { TemplateResolver } from './resolve.js';
import { LocalProvisioningError, type CloudFormationTemplate } from './template.js';

/** An ECS container's environment as the stack sets it, with the values that exist locally. */
export interface ContainerEnvironment {
  /** `<task definition logical id>/<container name>`. */
  container: string;
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

/** Each task definition container's environment, resolved against the resources provisioned locally. */
export function containerEnvironments(template: CloudFormationTemplate, resolver: TemplateResolver): ContainerEnvironment[] {
  const found: ContainerEnvironment[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::ECS::TaskDefinition') continue;
    const definitions = (resource.Properties?.ContainerDefinitions ?? []) as ContainerDefinition[];
    definitions.forEach((definition, index) => {
      const name = typeof definition.Name === 'string' ? definition.Name : String(index);
      const environment: Record<string, string> = {};
      const notLocal = (definition.Secrets ?? []).map((secret) => String(secret.Name));
      for (const variable of definition.Environment ?? []) {
        const variableName = String(variable.Name);
        try {
          environment[variableName] = resolver.resolveString(variable.Value, `${logicalId}.ContainerDefinitions.${name}.Environment.${variableName}`);
        } catch (error) {
          if (!(error instanceof LocalProvisioningError)) throw error;
          notLocal.push(variableName);
        }
      }
      found.push({ container: `${logicalId}/${name}`, environment, notLocal: notLocal.sort() });
    });
  }
  return found;
}

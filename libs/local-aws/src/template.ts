/** The parts of a synthesized CloudFormation template that local provisioning reads. */
export interface CloudFormationTemplate {
  Resources: Record<string, TemplateResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

/** A template that cannot be provisioned locally: malformed, or using something the emulator cannot express. */
export class LocalProvisioningError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalProvisioningError';
  }
}

/** Checks the shape before anything is created, so a bad file fails with its path, not halfway through. */
export function asTemplate(value: unknown, source: string): CloudFormationTemplate {
  const resources = (value as { Resources?: unknown } | null)?.Resources;
  if (typeof resources !== 'object' || resources === null || Array.isArray(resources)) {
    throw new LocalProvisioningError(`${source} is not a CloudFormation template: it has no Resources object`);
  }
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (typeof (resource as { Type?: unknown } | null)?.Type !== 'string') {
      throw new LocalProvisioningError(`${source}: resource ${logicalId} has no Type`);
    }
  }
  return value as CloudFormationTemplate;
}

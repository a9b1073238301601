/** The parts of a synthesized CloudFormation template that local provisioning reads. */
export interface CloudFormationTemplate {
  /** The stack's resources by logical id. */
  Resources: Record<string, TemplateResource>;
  /** The stack's outputs by name. */
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

/** One resource of a template. */
export interface TemplateResource {
  /** Such as `AWS::SQS::Queue`. */
  Type: string;
  /** Its properties, intrinsic functions unresolved. */
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

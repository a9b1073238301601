import { LocalProvisioningError } from './template.js';

/** What `Ref` and `Fn::GetAtt` of a provisioned resource return, as CloudFormation defines them. */
export interface PhysicalResource {
  ref: string;
  attributes: Record<string, string>;
}

export interface PseudoParameters {
  stackName: string;
  region: string;
  accountId: string;
}

/**
 * Evaluates the intrinsic functions a synthesized stack uses for its queues, topics and
 * subscriptions: Ref, Fn::GetAtt, Fn::Join, Fn::Select, Fn::Split and Fn::Sub. Anything
 * else, or a reference to a resource not provisioned locally, is an error naming the
 * path, never a silently wrong value.
 */
export class TemplateResolver {
  private readonly resources = new Map<string, PhysicalResource>();

  constructor(private readonly pseudo: PseudoParameters) {}

  define(logicalId: string, resource: PhysicalResource): void {
    this.resources.set(logicalId, resource);
  }

  resolve(value: unknown, path: string): unknown {
    if (Array.isArray(value)) return value.map((item, i) => this.resolve(item, `${path}[${i}]`));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [key, argument] = entries[0]!;
      if (key === 'Ref' || key.startsWith('Fn::')) return this.intrinsic(key, argument, path);
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item, `${path}.${key}`)]));
  }

  resolveString(value: unknown, path: string): string {
    const resolved = this.resolve(value, path);
    if (typeof resolved === 'string' || typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw new LocalProvisioningError(`${path}: expected a string, got ${JSON.stringify(resolved)}`);
  }

  private intrinsic(name: string, argument: unknown, path: string): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(String(argument), path);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? argument.map(String) : String(argument).split('.');
        const value = this.physical(logicalId!, path).attributes[attribute!];
        if (value === undefined) throw new LocalProvisioningError(`${path}: ${logicalId} has no attribute ${attribute} locally`);
        return value;
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts, path) as unknown[]).map((part) => this.asText(part, path)).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        return (this.resolve(list, path) as unknown[])[Number(this.resolve(index, path))];
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return this.resolveString(source, path).split(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = (Array.isArray(argument) ? argument : [argument, {}]) as [string, Record<string, unknown>];
        return text.replace(/\$\{([^!}][^}]*)\}/g, (_, expression: string) => {
          if (expression in variables) return this.resolveString(variables[expression], path);
          const [logicalId, attribute] = expression.split('.');
          return attribute ? this.asText(this.intrinsic('Fn::GetAtt', [logicalId, attribute], path), path) : this.ref(logicalId!, path);
        });
      }
      default:
        throw new LocalProvisioningError(`${path}: ${name} is not supported by local provisioning`);
    }
  }

  private ref(logicalId: string, path: string): string {
    switch (logicalId) {
      case 'AWS::StackName':
        return this.pseudo.stackName;
      case 'AWS::Region':
        return this.pseudo.region;
      case 'AWS::AccountId':
        return this.pseudo.accountId;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      default:
        return this.physical(logicalId, path).ref;
    }
  }

  private physical(logicalId: string, path: string): PhysicalResource {
    const resource = this.resources.get(logicalId);
    if (!resource) throw new LocalProvisioningError(`${path}: refers to ${logicalId}, which is not provisioned locally`);
    return resource;
  }

  private asText(value: unknown, path: string): string {
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    throw new LocalProvisioningError(`${path}: cannot join ${JSON.stringify(value)}`);
  }
}

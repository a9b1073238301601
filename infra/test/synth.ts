import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { RequeueStack, type RequeueStackProps } from '../lib/index.js';

/**
 * The stack synthesized for assertions. The default keeps the real Docker asset, so the
 * template is the deployed one; variants use a registry image to skip hashing the repo.
 */
export function synthesize(props: RequeueStackProps = {}, options: { realImage?: boolean } = {}): Template {
  const app = new App();
  const worker =
    options.realImage || props.worker === false ? props.worker : { image: ecs.ContainerImage.fromRegistry('requeue-worker:test'), ...props.worker };
  return Template.fromStack(new RequeueStack(app, 'Requeue', { ...props, worker }));
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }>;

/** The one resource of a type whose logical id contains `hint`. */
export function resource(template: Template, type: string, hint: string) {
  const matches = Object.entries(template.findResources(type) as Resources).filter(([id]) => id.includes(hint));
  if (matches.length !== 1) throw new Error(`expected one ${type} matching ${hint}, found ${matches.map(([id]) => id).join(', ') || 'none'}`);
  return { logicalId: matches[0]![0], ...matches[0]![1] };
}

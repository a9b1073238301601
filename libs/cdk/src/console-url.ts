import { Aws, CfnMapping, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The AWS console's domain in each partition. It is not the service endpoint suffix
 * (`AWS::URLSuffix`, amazonaws.com): the console lives at console.aws.amazon.com, and in
 * China and GovCloud at their own domains.
 */
export const CONSOLE_DOMAINS = {
  aws: 'console.aws.amazon.com',
  'aws-cn': 'console.amazonaws.cn',
  'aws-us-gov': 'console.amazonaws-us-gov.com',
} as const;

const MAPPING_ID = 'RequeueConsoleDomains';

/** The console's address for `path` (`/cloudwatch/home…`) in the stack's region and partition, resolved at deploy. */
export function consoleUrl(scope: Construct, path: string): string {
  const stack = Stack.of(scope);
  const mapping =
    (stack.node.tryFindChild(MAPPING_ID) as CfnMapping | undefined) ??
    new CfnMapping(stack, MAPPING_ID, { mapping: Object.fromEntries(Object.entries(CONSOLE_DOMAINS).map(([partition, domain]) => [partition, { domain }])) });
  return `https://${Aws.REGION}.${mapping.findInMap(Aws.PARTITION, 'domain')}${path}`;
}

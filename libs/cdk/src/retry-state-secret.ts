import { Validations } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/**
 * The key of the HMAC on `x-retry` that every task shares (`WORKER_RETRY_STATE_KEYS`): the
 * one given, or a new secret of 64 random letters and digits. The task's execution role
 * may read it, and nothing else may. Rotate it by hand in three deployments: `old,new`, then
 * `new,old`, then `new` once the retries the old key signed are gone (docs/security.md).
 */
export function retryStateKeysSecret(scope: Construct, given: secretsmanager.ISecret | undefined): ecs.Secret {
  return ecs.Secret.fromSecretsManager(retryStateKeys(scope, given));
}

/** The secret itself: the one given, or a new one (`retryStateKeysSecret`). */
export function retryStateKeys(scope: Construct, given: secretsmanager.ISecret | undefined): secretsmanager.ISecret {
  if (given) return given;
  const secret = new secretsmanager.Secret(scope, 'RetryStateKeys', {
    description: 'requeue worker: the HMAC key of x-retry (WORKER_RETRY_STATE_KEYS); "old,new" then "new,old" while rotating',
    generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'Rotation is by hand: the worker verifies with every key in the comma-separated value, so a rolling rotation writes "old,new", ' +
      'then "new,old", then "new"; a rotation Lambda would only do the same on a schedule.',
  });
  return secret;
}

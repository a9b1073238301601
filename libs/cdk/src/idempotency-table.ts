import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** How the idempotency table is encrypted and what happens to it on `cdk destroy`. */
export interface IdempotencyTableProps {
  /**
   * Encrypts the table with this customer-managed key; grants cover it.
   * @default - an AWS-owned key
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * What deleting the stack, or replacing the table, does with it. Retained by default:
   * its records are what keeps a redelivered or republished job from running twice, and
   * a new, empty table would let every duplicate of the last hours (the completed-record
   * TTL) run again.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * A table keyed on `id` with a TTL on `expiration`: what the Powertools DynamoDB
 * persistence layer writes, and the fleet's reports fit too. On-demand, point-in-time
 * recovery, encrypted.
 */
export function keyValueTable(
  scope: Construct,
  props: { encryptionKey?: kms.IKey; removalPolicy?: RemovalPolicy },
  defaultRemovalPolicy: RemovalPolicy,
): dynamodb.Table {
  return new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: 'expiration',
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    ...(props.encryptionKey
      ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
      : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
    removalPolicy: props.removalPolicy ?? defaultRemovalPolicy,
  });
}

/**
 * The store of the worker's idempotency records (`WORKER_IDEMPOTENCY=dynamodb:<table>`),
 * shaped as the Powertools DynamoDB persistence layer writes them: partition key `id`,
 * TTL on `expiration`. On-demand, point-in-time recovery, encrypted.
 */
export class IdempotencyTable extends Construct {
  /** The table itself, for alarms or further grants of your own. */
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: IdempotencyTableProps = {}) {
    super(scope, id);
    this.table = keyValueTable(this, props, RemovalPolicy.RETAIN);
  }

  /** What `WORKER_IDEMPOTENCY=dynamodb:<table>` names. */
  get tableName(): string {
    return this.table.tableName;
  }

  /**
   * What the worker does with records, and nothing more: read one, write one
   * conditionally, complete it, delete it after a failure. The key's use, when the table
   * has a customer-managed key.
   */
  grantRecords(grantee: iam.IGrantable): iam.Grant {
    const grant = this.table.grant(grantee, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem');
    this.table.encryptionKey?.grantEncryptDecrypt(grantee);
    return grant;
  }
}

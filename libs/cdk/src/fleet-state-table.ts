import { RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { keyValueTable } from './idempotency-table.js';

/** How the fleet's table is encrypted and what `cdk destroy` does with it. */
export interface FleetStateTableProps {
  /**
   * Encrypts the table with this customer-managed key; grants cover it.
   * @default - an AWS-owned key
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * What deleting the stack, or replacing the table, does with it. Destroyed by default:
   * it holds no state worth keeping, only the tasks' last few seconds of reports, each
   * expiring with its writer, and a new table is as good as the old one.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * Where the worker's tasks share backpressure (`WORKER_FLEET_STATE=dynamodb:<table>`):
 * one item per dependency, a few hundred bytes per task, written only while the
 * dependency pushes back. Losing it costs nothing but the coordination: each task then
 * paces on its own.
 */
export class FleetStateTable extends Construct {
  /** The table itself, for alarms or further grants of your own. */
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: FleetStateTableProps = {}) {
    super(scope, id);
    this.table = keyValueTable(this, props, RemovalPolicy.DESTROY);
  }

  /** What `WORKER_FLEET_STATE=dynamodb:<table>` names. */
  get tableName(): string {
    return this.table.tableName;
  }

  /** The one call a task makes: an UpdateItem that writes its report and returns the others'. The key's use, when the table has one. */
  grantReports(grantee: iam.IGrantable): iam.Grant {
    const grant = this.table.grant(grantee, 'dynamodb:UpdateItem');
    this.table.encryptionKey?.grantEncryptDecrypt(grantee);
    return grant;
  }
}

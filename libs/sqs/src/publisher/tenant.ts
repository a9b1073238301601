/** SQS's rule for a MessageGroupId: 1-128 printable ASCII characters, no spaces. */
const GROUP_ID = /^[\x21-\x7e]{1,128}$/;

type Fail = (field: string, problem: string) => never;
type Attributes = Readonly<Record<string, string | number | Uint8Array>>;

/** The fields of an outgoing message a tenant touches. */
interface TenantedMessage {
  tenant?: string;
  groupId?: string;
  attributes?: Attributes;
}

/** What a message's `tenant` adds: the MessageGroupId it goes with, and the tenant attribute where the publisher has one. */
export interface TenantFields {
  groupId: string | undefined;
  attributes: Attributes | undefined;
}

/**
 * SQS fair queues take a standard queue's MessageGroupId as the tenant, so `tenant` is sent
 * as the group unless `groupId` names one. On a standard queue or topic the two are one
 * field, so different values are refused; on FIFO the group orders and the tenant rides in
 * the attribute.
 */
export function tenantFields(message: TenantedMessage, fifo: boolean, tenantAttribute: string | undefined, fail: Fail): TenantFields {
  const { tenant } = message;
  if (tenant === undefined) return { groupId: message.groupId, attributes: message.attributes };
  if (typeof tenant !== 'string' || !GROUP_ID.test(tenant))
    fail('tenant', 'must be 1-128 printable ASCII characters without spaces (it is sent as the MessageGroupId)');
  if (!fifo && message.groupId !== undefined && message.groupId !== tenant) {
    fail('tenant', `differs from groupId ${JSON.stringify(message.groupId)}: on a standard queue or topic the MessageGroupId is the tenant; give one of them`);
  }
  if (tenantAttribute === undefined) return { groupId: message.groupId ?? tenant, attributes: message.attributes };
  const given = message.attributes?.[tenantAttribute];
  if (given !== undefined && given !== tenant)
    fail(`attributes.${tenantAttribute}`, `is the tenant attribute, and differs from tenant ${JSON.stringify(tenant)}`);
  return { groupId: message.groupId ?? tenant, attributes: { ...message.attributes, [tenantAttribute]: tenant } };
}

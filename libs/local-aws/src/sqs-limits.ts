/** SQS's documented limits (Amazon SQS quotas; SendMessage, SendMessageBatch, ChangeMessageVisibility API references). */
export const SQS_LIMITS = {
  messageAttributes: 10,
  attributeNameLength: 256,
  /** The largest `MaximumMessageSize` a queue may have, and the total of one batch. */
  messageBytes: 1_048_576,
  batchEntries: 10,
  delaySeconds: 900,
  visibilityTimeoutSeconds: 43_200,
} as const;

/** Why SQS refuses a request or one entry of a batch: its error code and its message. */
export interface SqsLimitFailure {
  /** SQS's error code, e.g. `InvalidParameterValue`, `TooManyEntriesInBatchRequest`. */
  code: string;
  /** SQS's message for it. */
  message: string;
}

/** A request as checked: refused whole (`request`), or entry by entry (`entries`, by batch entry `Id`). */
export interface SqsLimitCheck {
  /** Why SQS refuses the whole request, if it does. */
  request: SqsLimitFailure | undefined;
  /** Why SQS fails each refused entry of a batch, by the entry's `Id`. */
  entries: ReadonlyMap<string, SqsLimitFailure>;
}

/** A message attribute as the SDK (bytes) or the JSON protocol (base64) carries it. */
interface AttributeValue {
  DataType?: string;
  StringValue?: string;
  BinaryValue?: Uint8Array | string;
}

interface MessageInput {
  Id?: string;
  MessageBody?: string;
  MessageAttributes?: Record<string, AttributeValue>;
  DelaySeconds?: number;
  VisibilityTimeout?: number;
}

const NO_ENTRIES: ReadonlyMap<string, SqsLimitFailure> = new Map();
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]+$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[^\s]+)?$/;

/**
 * Checks one SQS request against the limits SQS enforces and answers as SQS does: the
 * error code and message it would return, for the whole request or (in a batch) for each
 * entry SQS reports on its own. `maximumMessageSize` is the target queue's own limit.
 * Operations it does not know pass.
 */
export function checkSqsRequest(operation: string, input: unknown, maximumMessageSize: number = SQS_LIMITS.messageBytes): SqsLimitCheck {
  const request = (input ?? {}) as MessageInput & { Entries?: MessageInput[]; MaxNumberOfMessages?: number };
  switch (operation) {
    case 'SendMessage':
      return whole(messageFailure(request, maximumMessageSize));
    case 'SendMessageBatch':
      return batchCheck(request.Entries ?? [], (entry) => messageFailure(entry, maximumMessageSize), batchTooLong(request.Entries ?? []));
    case 'ChangeMessageVisibility':
    case 'ReceiveMessage':
      return whole(visibilityFailure(request.VisibilityTimeout));
    case 'ChangeMessageVisibilityBatch':
      return batchCheck(request.Entries ?? [], (entry) => visibilityFailure(entry.VisibilityTimeout));
    case 'DeleteMessageBatch':
      return batchCheck(request.Entries ?? [], () => undefined);
    default:
      return whole(undefined);
  }
}

function whole(failure: SqsLimitFailure | undefined): SqsLimitCheck {
  return { request: failure, entries: NO_ENTRIES };
}

function batchCheck(entries: MessageInput[], check: (entry: MessageInput) => SqsLimitFailure | undefined, requestFailure?: SqsLimitFailure): SqsLimitCheck {
  if (entries.length > SQS_LIMITS.batchEntries) {
    return whole({
      code: 'TooManyEntriesInBatchRequest',
      message: `Maximum number of entries per request are ${SQS_LIMITS.batchEntries}. You have sent ${entries.length}.`,
    });
  }
  if (requestFailure) return whole(requestFailure);
  const failed = new Map<string, SqsLimitFailure>();
  for (const entry of entries) {
    const failure = check(entry);
    if (failure) failed.set(entry.Id ?? '', failure);
  }
  return { request: undefined, entries: failed };
}

function batchTooLong(entries: MessageInput[]): SqsLimitFailure | undefined {
  const total = entries.reduce((sum, entry) => sum + sqsMessageBytes(entry.MessageBody ?? '', entry.MessageAttributes ?? {}), 0);
  if (total <= SQS_LIMITS.messageBytes) return undefined;
  return { code: 'BatchRequestTooLong', message: `Batch requests cannot be longer than ${SQS_LIMITS.messageBytes} bytes. You have sent ${total} bytes.` };
}

function messageFailure(message: MessageInput, maximumMessageSize: number): SqsLimitFailure | undefined {
  const attributes = message.MessageAttributes ?? {};
  const names = Object.keys(attributes);
  if (names.length > SQS_LIMITS.messageAttributes) {
    return invalid(`Number of message attributes [${names.length}] exceeds the allowed maximum [${SQS_LIMITS.messageAttributes}].`);
  }
  for (const name of names) {
    const problem = attributeNameProblem(name) ?? attributeValueProblem(name, attributes[name]!);
    if (problem) return invalid(problem);
  }
  const delay = message.DelaySeconds;
  if (delay !== undefined && (delay < 0 || delay > SQS_LIMITS.delaySeconds)) {
    return invalid(`Value ${delay} for parameter DelaySeconds is invalid. Reason: must be >= 0 and <= ${SQS_LIMITS.delaySeconds}.`);
  }
  const bytes = sqsMessageBytes(message.MessageBody ?? '', attributes);
  if (bytes > maximumMessageSize) return invalid(`One or more parameters are invalid. Reason: Message must be shorter than ${maximumMessageSize} bytes.`);
  return undefined;
}

/** The name rules of the SendMessage reference: characters, length, reserved prefixes, periods. */
function attributeNameProblem(name: string): string | undefined {
  const invalidName = `Message (user) attribute name '${name}' is invalid.`;
  if (name.length === 0 || name.length > SQS_LIMITS.attributeNameLength)
    return `${invalidName} Reason: must be 1 to ${SQS_LIMITS.attributeNameLength} characters long.`;
  if (!ATTRIBUTE_NAME.test(name)) return `${invalidName} Reason: only alphanumeric characters, hyphens, underscores and periods are allowed.`;
  if (/^(aws|amazon)\./i.test(name)) return `${invalidName} Reason: the AWS. and Amazon. prefixes are reserved for use by Amazon Web Services.`;
  if (name.startsWith('.') || name.endsWith('.') || name.includes('..'))
    return `${invalidName} Reason: it may not start or end with a period, nor have periods in succession.`;
  return undefined;
}

function attributeValueProblem(name: string, value: AttributeValue): string | undefined {
  if (!DATA_TYPE.test(value.DataType ?? ''))
    return `The type of message (user) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`;
  const empty = value.DataType!.startsWith('Binary') ? binaryLength(value.BinaryValue) === 0 : !value.StringValue;
  return empty ? `Message (user) attribute '${name}' must contain a non-empty value of type '${value.DataType}'.` : undefined;
}

function invalid(message: string): SqsLimitFailure {
  return { code: 'InvalidParameterValue', message };
}

/** What SQS counts against a message's size: the body plus each attribute's name, type and value. */
export function sqsMessageBytes(body: string, attributes: Record<string, AttributeValue>): number {
  let bytes = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    if (value.StringValue !== undefined) bytes += Buffer.byteLength(value.StringValue, 'utf8');
    bytes += binaryLength(value.BinaryValue);
  }
  return bytes;
}

function binaryLength(value: Uint8Array | string | undefined): number {
  if (value === undefined) return 0;
  return typeof value === 'string' ? Buffer.from(value, 'base64').byteLength : value.byteLength;
}

function visibilityFailure(seconds: number | undefined): SqsLimitFailure | undefined {
  if (seconds === undefined || (seconds >= 0 && seconds <= SQS_LIMITS.visibilityTimeoutSeconds)) return undefined;
  return invalid(`Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and ${SQS_LIMITS.visibilityTimeoutSeconds}.`);
}

import type { buildApp } from 'fauxqs';
import { checkSqsRequest, type SqsLimitFailure } from './sqs-limits.js';

type Emulator = ReturnType<typeof buildApp>;
type BatchFailure = { Id: string; SenderFault: true; Code: string; Message: string };

const TARGET_PREFIX = 'AmazonSQS.';

/**
 * Makes the emulator refuse what SQS refuses (see `checkSqsRequest`) before fauxqs sees
 * the request: a whole request with SQS's error document, a batch's entries each with
 * its own failure beside what fauxqs answers for the rest. fauxqs enforces part of these
 * limits itself; code that passes here also passes in AWS.
 */
export function enforceSqsLimits(app: Emulator): void {
  const entryFailures = new WeakMap<object, BatchFailure[]>();
  app.addHook('preHandler', async (request, reply: Reply) => {
    const target = request.headers['x-amz-target'];
    if (typeof target !== 'string' || !target.startsWith(TARGET_PREFIX)) return undefined;
    const body = request.body as { Entries?: Array<{ Id?: string }> } | undefined;
    const check = checkSqsRequest(target.slice(TARGET_PREFIX.length), body);
    if (check.request) return refuse(reply, check.request);
    if (check.entries.size === 0 || !body?.Entries) return undefined;
    const failed = [...check.entries].map(([id, failure]): BatchFailure => ({ Id: id, SenderFault: true, Code: failure.code, Message: failure.message }));
    body.Entries = body.Entries.filter((entry) => !check.entries.has(entry.Id ?? ''));
    if (body.Entries.length === 0) return reply.code(200).header('content-type', 'application/x-amz-json-1.0').send({ Successful: [], Failed: failed });
    entryFailures.set(request, failed);
    return undefined;
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    const failed = entryFailures.get(request);
    if (!failed || typeof payload !== 'string') return payload;
    const answer = JSON.parse(payload) as { Successful?: unknown[]; Failed?: BatchFailure[] };
    return JSON.stringify({ ...answer, Failed: [...(answer.Failed ?? []), ...failed] });
  });
}

/** The part of a reply the refusal uses. */
interface Reply {
  code(status: number): Reply;
  header(name: string, value: string): Reply;
  send(payload: unknown): unknown;
}

/** SQS's error document; the query-protocol code (which older SDKs read) has SQS's own prefix where SQS gives it one. */
function refuse(reply: Reply, failure: SqsLimitFailure) {
  const queryCode = failure.code === 'InvalidParameterValue' ? failure.code : `AWS.SimpleQueueService.${failure.code}`;
  return reply
    .code(400)
    .header('content-type', 'application/x-amz-json-1.0')
    .header('x-amzn-query-error', `${queryCode};Sender`)
    .send({ __type: `com.amazonaws.sqs#${failure.code}`, message: failure.message });
}

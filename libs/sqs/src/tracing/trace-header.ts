import type { SpanContext } from '@opentelemetry/api';
import { otel } from './otel-api.js';

/** The W3C Trace Context header, as a message attribute: `00-<trace id>-<span id>-<flags>`. */
export const TRACEPARENT_ATTRIBUTE = 'traceparent';
/** Vendor-specific trace data that travels with `traceparent`. */
export const TRACESTATE_ATTRIBUTE = 'tracestate';
/** The SQS message system attribute X-Ray reads; it does not count against the 10 message attributes. */
export const AWS_TRACE_HEADER = 'AWSTraceHeader';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
/** W3C trace flags (OpenTelemetry's TraceFlags), here so that parsing needs no optional peer. */
const SAMPLED = 1;
const NOT_SAMPLED = 0;

/**
 * A remote span context from `traceparent` (and `tracestate`), or undefined when the
 * header is not valid W3C Trace Context: a bad header starts a new trace, never fails a message.
 */
export function parseTraceparent(traceparent: string, tracestate?: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is forbidden; version 00 has exactly four fields (W3C Trace Context, section 3.2).
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  return remoteContext(traceId, spanId, parseInt(flags, 16) & SAMPLED, tracestate);
}

export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-0${context.traceFlags & SAMPLED}`;
}

/**
 * A remote span context from an X-Ray header such as
 * `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`. The X-Ray
 * trace id is the W3C one with its first 8 digits (a timestamp) split off, so the two
 * convert both ways without loss.
 */
export function parseAwsTraceHeader(header: string): SpanContext | undefined {
  const fields = new Map<string, string>();
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const root = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/.exec(fields.get('Root') ?? '');
  const parent = fields.get('Parent') ?? '';
  if (!root || !/^[0-9a-f]{16}$/.test(parent)) return undefined;
  return remoteContext(`${root[1]}${root[2]}`, parent, fields.get('Sampled') === '1' ? SAMPLED : NOT_SAMPLED);
}

export function formatAwsTraceHeader(context: SpanContext): string {
  const { traceId, spanId } = context;
  return `Root=1-${traceId.slice(0, 8)}-${traceId.slice(8)};Parent=${spanId};Sampled=${context.traceFlags & SAMPLED}`;
}

function remoteContext(traceId: string, spanId: string, traceFlags: number, tracestate?: string): SpanContext | undefined {
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  // Without the API the tracestate attribute is not parsed; it then travels on copies as it came.
  const traceState = tracestate ? otel?.createTraceState(tracestate) : undefined;
  return { traceId, spanId, traceFlags, isRemote: true, ...(traceState ? { traceState } : {}) };
}

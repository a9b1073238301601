import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAwsTraceHeader, formatTraceparent, parseAwsTraceHeader, parseTraceparent } from './trace-header.js';

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`)).filter((s) => !/^0+$/.test(s));
const spanContexts = fc.record({ traceId: hex(32), spanId: hex(16), traceFlags: fc.constantFrom(0, 1) });

describe('trace headers', () => {
  it('reads back every context it writes, as traceparent and as AWSTraceHeader', () => {
    fc.assert(
      fc.property(spanContexts, (context) => {
        const expected = { ...context, isRemote: true };
        expect(parseTraceparent(formatTraceparent(expected))).toEqual(expected);
        expect(parseAwsTraceHeader(formatAwsTraceHeader(expected))).toEqual(expected);
      }),
    );
  });

  it('converts between the X-Ray and W3C trace ids without loss', () => {
    const fromXray = parseAwsTraceHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
    expect(fromXray).toMatchObject({ traceId: '5759e988bd862e3fe1be46a994272793', spanId: '53995c3f42cd8ad8', traceFlags: 1 });
    expect(formatTraceparent(fromXray!)).toBe('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01');
    expect(parseAwsTraceHeader('Sampled=0;Lineage=a87bd80c:1|68fd508a:5;Parent=53995c3f42cd8ad8;Root=1-5759e988-bd862e3fe1be46a994272793')).toMatchObject({
      traceFlags: 0,
    });
  });

  it('keeps tracestate with traceparent', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'vendor=abc,other=1')?.traceState?.get('vendor')).toBe('abc');
  });

  it.each([
    ['garbage', 'not a header'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['version 00 with a fifth field', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
  ])('ignores a traceparent with %s (the delivery starts a new trace)', (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('accepts a later version with extra fields, as W3C asks', () => {
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03-future')).toMatchObject({ traceFlags: 1 });
  });

  it.each([
    ['no Root', 'Parent=53995c3f42cd8ad8;Sampled=1'],
    ['no Parent (a Lambda-style header without one)', 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1'],
    ['a malformed Root', 'Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8'],
  ])('ignores an AWSTraceHeader with %s', (_, header) => {
    expect(parseAwsTraceHeader(header)).toBeUndefined();
  });
});

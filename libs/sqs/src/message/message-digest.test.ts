import { describe, expect, it } from 'vitest';
import { messageDigest } from './message-digest.js';

const TRACEPARENT = { DataType: 'String', StringValue: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

// A signed x-retry is bound to this digest: a worker of the next version, in a rolling
// deployment, must compute the same one for the messages the last version signed.
describe('messageDigest', () => {
  it('is the digest earlier workers computed, with and without the publisher’s attributes', () => {
    expect(messageDigest('x', {})).toBe('VL8WYhkuno6tBSYTRNjPuZk_-80PA03JHfQzN8m4h6Q');
    expect(messageDigest('{"id":"é\\n\u2028"}', {})).toBe('BzXM0bJgcteOPxURteMEad-5_2njebGLr8-vkQVFl1k');
    const attributes = { tenant: { DataType: 'String', StringValue: 'a' }, bin: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) } };
    expect(messageDigest('x', attributes)).toBe('3p0TDCOXxvuw1jQ4V79RWEpJqTKxgkuOiU4UI6C2keg');
  });

  it('leaves out the trace context, which every copy rewrites', () => {
    expect(messageDigest('x', { traceparent: TRACEPARENT })).toBe(messageDigest('x', {}));
  });
});

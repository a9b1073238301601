import { describe, expect, it } from 'vitest';
import { Dependencies, MAX_DEPENDENCIES } from './dependencies.js';
import { resolveBackpressure } from './options.js';

describe('dependencies named by messages', () => {
  it('keeps at most MAX_DEPENDENCIES gates, dropping the least recently used idle one, never one in use', async () => {
    const dependencies = new Dependencies(
      resolveBackpressure({}),
      10,
      () => Date.now(),
      () => 0.5,
    );
    const busy = await dependencies.get('busy.example.com').admit();
    expect(busy.kind).toBe('run');
    dependencies.get('recent.example.com');
    for (let i = 0; i < 2000; i++) dependencies.get(`host-${i}.example.com`);
    // Touched again, so it is not the least recently used.
    for (let i = 0; i < 5; i++) dependencies.get('recent.example.com');
    const keys = dependencies.snapshot().map((d) => d.key);
    expect(keys).toHaveLength(MAX_DEPENDENCIES);
    expect(keys).toContain('busy.example.com');
    expect(keys).toContain('host-1999.example.com');
    expect(keys).not.toContain('host-0.example.com');
    dependencies.stop();
  });

  it('keeps a dependency that every other message names, however many others come and go', () => {
    const dependencies = new Dependencies(
      resolveBackpressure({}),
      10,
      () => Date.now(),
      () => 0.5,
    );
    for (let i = 0; i < 3000; i++) {
      dependencies.get(`host-${i}.example.com`);
      // Named twice in a row: the second use finds it most recent already.
      dependencies.get('payments.example.com');
      dependencies.get('payments.example.com');
    }
    const keys = dependencies.snapshot().map((d) => d.key);
    expect(keys).toHaveLength(MAX_DEPENDENCIES);
    expect(keys).toContain('payments.example.com');
    expect(keys).not.toContain('host-1000.example.com');
    dependencies.stop();
  });

  it('lists those pushing back first, and at most as many as asked; metrics take only those', async () => {
    const dependencies = new Dependencies(
      resolveBackpressure({ rateLimitEvidence: 1 }),
      10,
      () => Date.now(),
      () => 0.5,
    );
    for (let i = 0; i < 30; i++) dependencies.get(`quiet-${i}.example.com`);
    const limited = dependencies.get('limited.example.com');
    const call = await limited.admit();
    if (call.kind !== 'run') throw new Error('expected a run');
    limited.finish(call.ticket, { kind: 'rate-limited', retryAfterMs: 10_000 });
    expect(dependencies.snapshot(20).map((d) => d.key)).toHaveLength(20);
    expect(dependencies.snapshot(20)[0]!.key).toBe('limited.example.com');
    expect(dependencies.snapshot(50, true).map((d) => d.key)).toEqual(['limited.example.com']);
    dependencies.stop();
  });
});

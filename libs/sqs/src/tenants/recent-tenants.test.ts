import { describe, expect, it } from 'vitest';
import { RecentTenants } from './recent-tenants.js';

describe('RecentTenants', () => {
  it('counts several tenants only while a second one was seen within the window', () => {
    let now = 0;
    const recent = new RecentTenants(() => now, 1_000);
    recent.seen('a');
    recent.seen('a');
    expect(recent.several).toBe(false);
    now = 500;
    recent.seen('b');
    expect(recent.several).toBe(true);
    now = 1_400;
    recent.seen('a');
    // b was seen 900 ms ago: still within the window.
    expect(recent.several).toBe(true);
    now = 1_501;
    expect(recent.several).toBe(false);
  });

  it('tracks at most maxTracked tenants, forgetting the least recently seen', () => {
    const recent = new RecentTenants(() => 0, 1_000, 2);
    recent.seen('a');
    recent.seen('b');
    recent.seen('c');
    expect(recent.several).toBe(true);
    expect((recent as unknown as { lastSeen: Map<string, number> }).lastSeen.size).toBe(2);
  });
});

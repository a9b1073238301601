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
    now = 900;
    recent.seen('b');
    // a was last seen 900 ms ago: still within the window.
    expect(recent.several).toBe(true);
    now = 1_001;
    recent.seen('b');
    expect(recent.several).toBe(false);
    // c takes over from b, seen 1 ms ago.
    now = 1_002;
    recent.seen('c');
    expect(recent.several).toBe(true);
  });
});

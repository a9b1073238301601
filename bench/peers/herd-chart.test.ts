import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeHerdChart } from './herd-chart.js';

const timeline = (perSecond: number) => Array.from({ length: 30 }, (_, second) => ({ second, accepted: perSecond, rejected: 0 }));

describe('herd chart', () => {
  it('names every policy in full in the legend, with the capacity line labelled', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'herd-chart-')), 'chart.svg');
    const policies = ['requeue defaults (backpressure on)', 'requeue, backpressure off (retry policy alone)', 'seed reference loop'];
    await writeHerdChart(
      policies.map((policy, i) => ({ policy, timeline: timeline(50 * (i + 1)) })),
      path,
    );
    const svg = readFileSync(path, 'utf8');
    for (const policy of policies) expect(svg).toContain(`>${policy}<`);
    expect(svg).toContain('>capacity 100/s<');
    expect(svg).not.toContain('…<');
  });
});

import type { Outage } from './profile.js';
import type { TimelinePoint } from './timeline.js';

/** One policy's run, as the chart draws it. */
export interface ChartRun {
  policy: string;
  series: readonly TimelinePoint[];
  intervalSeconds: number;
}

const WIDTH = 860;
const PANEL = 220;
const MARGIN = { left: 64, right: 24, top: 40, bottom: 36 };
// Drawn in this order: a success is a call, so the successes go over the calls they share a value with.
const LINES = [
  { key: 'published', label: 'published/s', color: '#7a7f87' },
  { key: 'calls', label: 'downstream calls/s', color: '#1f5fbf' },
  { key: 'succeeded', label: 'succeeded/s', color: '#2e8540' },
  { key: 'rateLimited', label: '429s/s', color: '#d9822b' },
  { key: 'deadLettered', label: 'dead-lettered/s', color: '#c23b3b' },
] as const;

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fixed = (n: number) => (Math.round(n * 10) / 10).toString();

/** A stroke from (x1, y1) to (x2, y2); `extra` adds attributes. */
function line(x1: number, y1: number, x2: number, y2: number, stroke: string, extra = ''): string {
  return `<line x1="${fixed(x1)}" y1="${fixed(y1)}" x2="${fixed(x2)}" y2="${fixed(y2)}" stroke="${stroke}"${extra} />`;
}

/** A round axis maximum at or above `n`: 1, 2 or 5 times a power of ten. */
function niceCeiling(n: number): number {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return ([1, 2, 5, 10].find((step) => step * power >= n) ?? 10) * power;
}

function panel(run: ChartRun, top: number, spanSeconds: number, outages: readonly Outage[], capacity: number | undefined): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const height = PANEL - MARGIN.top - MARGIN.bottom;
  const perSecond = (point: TimelinePoint, key: (typeof LINES)[number]['key']) => point[key] / run.intervalSeconds;
  const peak = Math.max(capacity ?? 0, ...run.series.flatMap((point) => LINES.map((line) => perSecond(point, line.key))));
  const yMax = niceCeiling(peak);
  const x = (second: number) => MARGIN.left + (second / spanSeconds) * plotWidth;
  const y = (value: number) => top + MARGIN.top + height - (value / yMax) * height;
  const parts = [`<text x="${MARGIN.left}" y="${top + 22}" font-size="14" font-weight="bold">${escape(run.policy)}</text>`];
  for (const outage of outages) {
    const from = x(outage.startSeconds);
    const to = x(Math.min(spanSeconds, outage.startSeconds + outage.durationSeconds));
    parts.push(`<rect x="${fixed(from)}" y="${top + MARGIN.top}" width="${fixed(Math.max(1, to - from))}" height="${height}" fill="#f3d6d6" />`);
  }
  parts.push(line(MARGIN.left, y(0), MARGIN.left + plotWidth, y(0), '#333'), line(MARGIN.left, top + MARGIN.top, MARGIN.left, y(0), '#333'));
  for (const tick of [0, yMax / 2, yMax]) {
    parts.push(`<text x="${MARGIN.left - 6}" y="${fixed(y(tick) + 4)}" font-size="11" text-anchor="end">${tick.toLocaleString('en-US')}</text>`);
  }
  for (const tick of [0, spanSeconds / 4, spanSeconds / 2, (3 * spanSeconds) / 4, spanSeconds]) {
    parts.push(`<text x="${fixed(x(tick))}" y="${fixed(y(0) + 16)}" font-size="11" text-anchor="middle">${Math.round(tick).toLocaleString('en-US')} s</text>`);
  }
  if (capacity !== undefined) {
    parts.push(line(MARGIN.left, y(capacity), MARGIN.left + plotWidth, y(capacity), '#c23b3b', ' stroke-dasharray="6 4"'));
  }
  for (const line of LINES) {
    const points = run.series.map((point) => `${fixed(x(point.second))},${fixed(y(perSecond(point, line.key)))}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${line.color}" stroke-width="1.5" points="${points}" />`);
  }
  return parts.join('\n');
}

function legend(top: number, capacity: boolean): string {
  const items: Array<{ label: string; color: string; dash?: boolean }> = [...LINES, { label: 'outage', color: '#f3d6d6' }];
  if (capacity) items.push({ label: 'capacity', color: '#c23b3b', dash: true });
  let left = MARGIN.left;
  return items
    .map((item) => {
      const at = left;
      left += 36 + item.label.length * 6.5;
      return { item, left: at };
    })
    .map(({ item, left }) => {
      const mark =
        item.label === 'outage'
          ? `<rect x="${left}" y="${top - 8}" width="18" height="10" fill="${item.color}" />`
          : line(left, top - 3, left + 18, top - 3, item.color, ` stroke-width="2"${item.dash ? ' stroke-dasharray="6 4"' : ''}`);
      return `${mark}<text x="${left + 22}" y="${top}" font-size="11">${escape(item.label)}</text>`;
    })
    .join('\n');
}

/**
 * The runs over virtual time, a panel per policy on one scale of seconds: messages
 * published, succeeded and dead-lettered per second, the dependency's calls and 429s per
 * second, its capacity, and its outages shaded.
 */
export function simulationChart(runs: readonly ChartRun[], outages: readonly Outage[], capacity: number | undefined): string {
  const spanSeconds = Math.max(1, ...runs.map((run) => (run.series.at(-1)?.second ?? 0) + run.intervalSeconds));
  const height = runs.length * PANEL + 30;
  const panels = runs.map((run, i) => panel(run, i * PANEL, spanSeconds, outages, capacity));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="white" />`,
    ...panels,
    legend(height - 10, capacity !== undefined),
    '</svg>',
    '',
  ].join('\n');
}

import { writeFileSync } from 'node:fs';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { HERD, type HerdRun } from './herd.js';

/**
 * Downstream requests per second over time for each policy, with the dependency's
 * capacity and the end of its outage marked, rendered to SVG with Vega-Lite (no browser,
 * no native canvas).
 */
export async function writeHerdChart(runs: ReadonlyArray<Pick<HerdRun, 'policy' | 'timeline'>>, path: string): Promise<void> {
  const values = runs.flatMap((run) => run.timeline.map((s) => ({ policy: run.policy, second: s.second, requests: s.accepted + s.rejected })));
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Downstream requests/s: ${HERD.messages.toLocaleString('en-US')} webhooks, dependency down ${HERD.outageMs / 1000} s, then ${HERD.capacityPerSecond}/s`,
      fontSize: 14,
    },
    width: 760,
    height: 320,
    layer: [
      {
        data: { values },
        mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
        encoding: {
          x: { field: 'second', type: 'quantitative', title: 'seconds since the outage began' },
          y: { field: 'requests', type: 'quantitative', title: 'requests per second' },
          color: { field: 'policy', type: 'nominal', title: null, legend: { orient: 'top-right' } },
        },
      },
      {
        data: { values: [{ capacity: HERD.capacityPerSecond, label: `capacity ${HERD.capacityPerSecond}/s` }] },
        layer: [
          { mark: { type: 'rule', strokeDash: [6, 4], color: '#c23b3b' }, encoding: { y: { field: 'capacity', type: 'quantitative' } } },
          {
            mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: '#c23b3b' },
            encoding: { y: { field: 'capacity', type: 'quantitative' }, x: { datum: 0 }, text: { field: 'label' } },
          },
        ],
      },
      {
        data: { values: [{ second: HERD.outageMs / 1000 }] },
        mark: { type: 'rule', strokeDash: [2, 3], color: '#7a7f87' },
        encoding: { x: { field: 'second', type: 'quantitative' } },
      },
    ],
    config: { background: 'white', font: 'sans-serif', legend: { labelLimit: 600 } },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  writeFileSync(path, await view.toSVG());
  view.finalize();
}

/**
 * A V8 `.cpuprofile` as a flame graph in SVG: one box per call path, as wide as the time
 * spent in it and under it, callers above callees. Frames of one function on the same path
 * are merged; the engine's, the in-memory queue's, the SDK's, Node's and the garbage
 * collector's time are told apart by colour.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Frame {
  name: string;
  where: string;
  total: number;
  children: Map<string, Frame>;
}

const WIDTH = 1200;
const ROW = 17;
/** Boxes narrower than this are left out, and their time shows in their caller's box. */
const MIN_WIDTH = 0.5;
/** Frames that are not the process's work: waiting, and the profiler's own bookkeeping (with its inspector session's calls). */
const IDLE = new Set(['(idle)', '(program)']);

/** Where a frame's code lives, short: `libs/sqs/…`, a package's name, or Node's. */
function whereOf(url: string): string {
  if (url === '') return '';
  const lib = /\/(libs|bench)\/([^/]+)\/(?:dist\/)?(.*)$/.exec(url);
  if (lib) return `${lib[1]}/${lib[2]}/${lib[3]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return pkg ? pkg[1]! : url.replace(/^node:/, 'node:');
}

function colourOf(frame: Frame): string {
  const { where, name } = frame;
  if (name === '(garbage collector)') return '#e05d5d';
  if (where.startsWith('libs/sqs') || where.startsWith('libs/retry')) return '#f0a04b';
  if (where.startsWith('libs/local-aws') || where.startsWith('bench/')) return '#7aa6d6';
  if (where.startsWith('@aws-sdk') || where.startsWith('@smithy')) return '#8cc084';
  return '#c8c8c8';
}

/** Sample time per node, merged into one tree of call paths. */
export function frameTree(profile: CpuProfile): Frame {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const root: Frame = { name: 'all', where: '', total: 0, children: new Map() };
  const visit = (node: ProfileNode, parent: Frame): number => {
    const { functionName, url } = node.callFrame;
    const name = functionName || '(anonymous)';
    if (IDLE.has(name) || url.startsWith('node:inspector')) return 0;
    const key = `${name} ${url}`;
    let frame = parent.children.get(key);
    if (!frame) parent.children.set(key, (frame = { name, where: whereOf(url), total: 0, children: new Map() }));
    let total = self.get(node.id) ?? 0;
    for (const child of node.children ?? []) total += visit(byId.get(child)!, frame);
    frame.total += total;
    return total;
  };
  const top = profile.nodes[0]!;
  for (const child of top.children ?? []) root.total += visit(byId.get(child)!, root);
  return root;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The tree as SVG, `title` above it; each box's tooltip gives its function, file and share. */
export function flameSvg(root: Frame, title: string): string {
  const boxes: string[] = [];
  let depth = 0;
  const draw = (frame: Frame, x: number, level: number) => {
    const width = (frame.total / root.total) * WIDTH;
    if (width < MIN_WIDTH) return;
    depth = Math.max(depth, level);
    const y = 30 + level * ROW;
    const share = ((100 * frame.total) / root.total).toFixed(1);
    const label = width > 40 ? `<text x="${(x + 3).toFixed(1)}" y="${y + 12}">${escape(frame.name.slice(0, Math.floor(width / 7)))}</text>` : '';
    boxes.push(
      `<g><title>${escape(`${frame.name} ${frame.where}: ${share}%`)}</title>` +
        `<rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${ROW - 1}" fill="${colourOf(frame)}"/>${label}</g>`,
    );
    let offset = x;
    for (const child of [...frame.children.values()].sort((a, b) => b.total - a.total)) {
      draw(child, offset, level + 1);
      offset += (child.total / root.total) * WIDTH;
    }
  };
  draw(root, 0, 0);
  const height = 30 + (depth + 1) * ROW + 24;
  const legend = [
    ['#f0a04b', 'engine (sqs, retry)'],
    ['#7aa6d6', 'in-memory queue and bench'],
    ['#8cc084', 'AWS SDK'],
    ['#e05d5d', 'garbage collector'],
    ['#c8c8c8', 'Node and V8'],
  ]
    .map(
      ([fill, text], i) =>
        `<rect x="${10 + i * 240}" y="${height - 18}" width="12" height="12" fill="${fill}"/><text x="${26 + i * 240}" y="${height - 8}">${text}</text>`,
    )
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="monospace" font-size="11">`,
    `<text x="10" y="18" font-size="13">${escape(title)}</text>`,
    ...boxes,
    legend,
    '</svg>',
    '',
  ].join('\n');
}

/** The share of the time by colour's category, and the functions with the most time of their own. */
export function summary(profile: CpuProfile, top = 12): { categories: Record<string, number>; hottest: Array<{ frame: string; share: number }> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const categories: Record<string, number> = {};
  let total = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url } = byId.get(id)!.callFrame;
    const name = functionName || '(anonymous)';
    if (IDLE.has(name) || url.startsWith('node:inspector')) return;
    const dt = profile.timeDeltas[i] ?? 0;
    const frame = { name, where: whereOf(url), total: 0, children: new Map() };
    total += dt;
    const key = `${name} ${frame.where}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    const category = colourOf(frame);
    categories[category] = (categories[category] ?? 0) + dt;
  });
  const names: Record<string, string> = { '#f0a04b': 'engine', '#7aa6d6': 'in-memory queue', '#8cc084': 'AWS SDK', '#e05d5d': 'GC', '#c8c8c8': 'Node' };
  return {
    categories: Object.fromEntries(Object.entries(categories).map(([colour, time]) => [names[colour]!, time / total])),
    hottest: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, time]) => ({ frame, share: time / total })),
  };
}

/**
 * The single page of the local dashboard. It mirrors the CloudWatch dashboard's widgets
 * (infra/lib/queue-monitoring.ts), polls /api/state every second and draws with uPlot.
 */
export const DASHBOARD_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>requeue: local dashboard</title>
<link rel="stylesheet" href="/assets/uplot.css">
<style>
  body { font: 14px system-ui, sans-serif; margin: 16px 24px; color: #1d2430; background: #f7f8fa; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .note { color: #5b6473; margin: 0 0 16px; }
  .tiles { display: grid; grid-template-columns: repeat(6, 1fr); gap: 12px; margin-bottom: 16px; }
  .tile { background: #fff; border: 1px solid #dde1e7; border-radius: 6px; padding: 10px 14px; }
  .tile .label { color: #5b6473; font-size: 12px; }
  .tile .value { font-size: 26px; font-weight: 600; }
  .charts { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
  .chart { background: #fff; border: 1px solid #dde1e7; border-radius: 6px; padding: 8px; }
  .chart h2, section h2 { font-size: 14px; margin: 4px 8px 8px; }
  section { background: #fff; border: 1px solid #dde1e7; border-radius: 6px; padding: 8px; margin-top: 12px; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  th, td { text-align: left; padding: 6px 8px; border-top: 1px solid #eef0f3; vertical-align: top; }
  td.body { font-family: ui-monospace, monospace; max-width: 420px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  button { font: inherit; padding: 2px 10px; border-radius: 4px; border: 1px solid #aab3c0; background: #fff; cursor: pointer; }
  button.replay { border-color: #2f6fde; color: #2f6fde; }
  button.discard { border-color: #c23b3b; color: #c23b3b; }
  #status { color: #c23b3b; min-height: 1.2em; }
</style>
</head>
<body>
<h1>requeue: local dashboard</h1>
<p class="note">The local mirror of the CloudWatch dashboard, which stays the production view. Refreshes every second.</p>
<div class="tiles">
  <div class="tile"><div class="label">visible</div><div class="value" id="visible">-</div></div>
  <div class="tile"><div class="label">in flight</div><div class="value" id="inflight">-</div></div>
  <div class="tile"><div class="label">delayed (retries waiting)</div><div class="value" id="delayed">-</div></div>
  <div class="tile"><div class="label">DLQ</div><div class="value" id="dlq">-</div></div>
  <div class="tile"><div class="label">processed</div><div class="value" id="processed">0</div></div>
  <div class="tile"><div class="label">retried</div><div class="value" id="retried">0</div></div>
  <div class="tile"><div class="label">deferred</div><div class="value" id="deferred">0</div></div>
</div>
<section>
  <h2>Back to the queue, by errorType</h2>
  <p class="note">A retry uses an attempt; a deferral keeps it (the dependency was paused or its circuit open). Since the worker started.</p>
  <table>
    <thead><tr><th>errorType</th><th>retries</th><th>deferrals</th></tr></thead>
    <tbody id="by-type"><tr><td colspan="3">none yet</td></tr></tbody>
  </table>
</section>
<div class="charts">
  <div class="chart"><h2>Processed, retried and dead-lettered per second</h2><div id="activity"></div></div>
  <div class="chart"><h2>Retried by errorType per second</h2><div id="retried-by-type"></div></div>
  <div class="chart"><h2>Dead-lettered by reason per second</h2><div id="dead-by-reason"></div></div>
  <div class="chart"><h2>Retry delays chosen (seconds)</h2><div id="delays"></div></div>
</div>
<section>
  <h2>Waiting to retry</h2>
  <p class="note">SQS cannot list delayed messages; these are the retries and deferrals this worker scheduled, newest first.</p>
  <table>
    <thead><tr><th>id</th><th>attempt</th><th>errorType</th><th>last error</th><th>due in</th><th>waits as</th><th>trace</th></tr></thead>
    <tbody id="retries"><tr><td colspan="7">loading…</td></tr></tbody>
  </table>
</section>
<section>
  <h2>Dead letters by cause</h2>
  <p class="note" id="groups-note">Grouped as <code>requeue dlq triage</code> groups them, under the same ids: send one cause back with <code>requeue dlq redrive --group &lt;id&gt;</code>, a canary first.</p>
  <table>
    <thead><tr><th>group</th><th>count</th><th>reason</th><th>errorType</th><th>dependency</th><th>error, masked</th><th>first seen</th><th>last seen</th></tr></thead>
    <tbody id="dead-letter-groups"><tr><td colspan="8">loading…</td></tr></tbody>
  </table>
</section>
<section>
  <h2>Dead-letter queue</h2>
  <div id="status"></div>
  <table>
    <thead><tr><th>id</th><th>reason</th><th>errorType</th><th>attempts</th><th>dead-lettered</th><th>error</th><th>body</th><th></th></tr></thead>
    <tbody id="dead-letters"><tr><td colspan="8">loading…</td></tr></tbody>
  </table>
</section>
<script src="/assets/uplot.js"></script>
<script>
const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
const COLORS = ['#2f6fde', '#e07b24', '#2e9e5b', '#c23b3b', '#8452c7', '#7a7f87', '#c7a12a', '#1aa3a3'];
const charts = {};

function width(el) { return Math.max(300, el.parentElement.clientWidth - 16); }

function draw(id, labels, data, bars) {
  const el = document.getElementById(id);
  const key = labels.join('|');
  const chart = charts[id];
  if (chart && chart.key === key) { chart.plot.setData(data); return; }
  if (chart) chart.plot.destroy();
  const series = [{}].concat(labels.map((label, i) => ({
    label, stroke: COLORS[i % COLORS.length], width: 2,
    fill: bars ? COLORS[i % COLORS.length] + '66' : undefined,
    paths: bars ? uPlot.paths.bars({ size: [0.7] }) : undefined,
  })));
  const opts = { width: width(el), height: 200, series, scales: { x: { time: !bars } }, axes: [{}, {}], legend: { show: true } };
  if (bars) opts.axes[0] = { values: (u, ticks) => ticks.map((t) => bucketNames[t] ?? '') };
  charts[id] = { key, plot: new uPlot(opts, data, el) };
}

let bucketNames = [];

function render(state) {
  document.getElementById('visible').textContent = state.queue.visible;
  document.getElementById('inflight').textContent = state.queue.inFlight;
  document.getElementById('delayed').textContent = state.queue.delayed;
  document.getElementById('dlq').textContent = state.dlq.visible + state.dlq.inFlight;
  document.getElementById('processed').textContent = state.activity.totals.succeeded;
  document.getElementById('retried').textContent = state.activity.totals.retried;
  document.getElementById('deferred').textContent = state.activity.totals.deferred;
  renderByType(state.activity.byErrorType);
  const seconds = state.activity.seconds.slice(-120);
  const x = seconds.map((s) => s.second);
  const sum = (record) => Object.values(record).reduce((a, b) => a + b, 0);
  draw('activity', ['processed', 'retried', 'dead-lettered'], [x, seconds.map((s) => s.succeeded), seconds.map((s) => sum(s.retried)), seconds.map((s) => sum(s.deadLettered))]);
  const keys = (field) => [...new Set(seconds.flatMap((s) => Object.keys(s[field])))].sort();
  const types = keys('retried');
  draw('retried-by-type', types.length ? types : ['none yet'], [x].concat(types.length ? types.map((t) => seconds.map((s) => s.retried[t] || 0)) : [seconds.map(() => 0)]));
  const reasons = keys('deadLettered');
  draw('dead-by-reason', reasons.length ? reasons : ['none yet'], [x].concat(reasons.length ? reasons.map((r) => seconds.map((s) => s.deadLettered[r] || 0)) : [seconds.map(() => 0)]));
  const histogram = state.activity.delayHistogram;
  bucketNames = histogram.map((b) => b.bucket);
  draw('delays', ['retries'], [histogram.map((_, i) => i), histogram.map((b) => b.count)], true);
}

function renderByType(byType) {
  const types = Object.keys(byType).sort();
  if (types.length === 0) return;
  document.getElementById('by-type').replaceChildren(...types.map((type) => {
    const tr = document.createElement('tr');
    tr.dataset.type = type;
    const retries = cell(byType[type].retries); retries.className = 'retries';
    const deferrals = cell(byType[type].deferrals); deferrals.className = 'deferrals';
    tr.append(cell(type), retries, deferrals);
    return tr;
  }));
}

function cell(text) { const td = document.createElement('td'); td.textContent = text; return td; }

function renderDeadLetters(rows) {
  const body = document.getElementById('dead-letters');
  body.replaceChildren();
  if (!rows.length) { const tr = document.createElement('tr'); tr.appendChild(cell('The DLQ is empty.')).colSpan = 8; body.appendChild(tr); return; }
  for (const row of rows) {
    const tr = document.createElement('tr');
    tr.dataset.messageId = row.messageId;
    tr.append(cell(row.messageId), cell(row.reason), cell(row.errorType), cell(String(row.attempts)),
      cell(row.deadLetteredAt ? new Date(row.deadLetteredAt).toLocaleTimeString() : '-'), cell(row.error));
    const bodyCell = cell(row.body); bodyCell.className = 'body'; bodyCell.title = row.body; tr.appendChild(bodyCell);
    const actions = document.createElement('td');
    for (const action of ['replay', 'discard']) {
      const button = document.createElement('button');
      button.className = action; button.textContent = action; button.dataset.action = action;
      button.onclick = () => act(action, row.messageId);
      actions.appendChild(button);
    }
    tr.appendChild(actions);
    body.appendChild(tr);
  }
}

function renderGroups(view) {
  const body = document.getElementById('dead-letter-groups');
  body.replaceChildren();
  if (!view.groups.length) { const tr = document.createElement('tr'); tr.appendChild(cell('The DLQ is empty.')).colSpan = 8; body.appendChild(tr); return; }
  const time = (ms) => (ms ? new Date(ms).toLocaleTimeString() : '-');
  for (const group of view.groups) {
    const tr = document.createElement('tr');
    tr.dataset.group = group.id;
    tr.append(cell(group.id), cell(String(group.count)), cell(group.reason), cell(group.errorType), cell(group.dependency || '-'),
      cell(group.fingerprint), cell(time(group.firstSeen)), cell(time(group.lastSeen)));
    body.appendChild(tr);
  }
  if (view.read < view.depth) { const tr = document.createElement('tr'); tr.appendChild(cell('From the first ' + view.read + ' of ' + view.depth + ' dead letters: requeue dlq triage reads them all.')).colSpan = 8; body.appendChild(tr); }
}

function renderRetries(state) {
  const body = document.getElementById('retries');
  body.replaceChildren();
  if (!state.retries.length) { const tr = document.createElement('tr'); tr.appendChild(cell('Nothing is waiting to retry.')).colSpan = 7; body.appendChild(tr); return; }
  for (const retry of state.retries) {
    const tr = document.createElement('tr');
    tr.dataset.messageId = retry.messageId;
    const waits = (retry.kind === 'deferred' ? 'deferral, no attempt used' : 'retry') + ' (' + retry.transport + ')';
    tr.append(cell(retry.messageId), cell(String(retry.attempt)), cell(retry.errorType), cell(retry.lastError),
      cell(Math.max(0, Math.ceil((retry.dueAt - state.at) / 1000)) + ' s'), cell(waits), traceCell(retry.traceId, state.traceUrl));
    body.appendChild(tr);
  }
}

function traceCell(traceId, traceUrl) {
  if (!traceId) return cell('');
  if (!traceUrl) return cell(traceId);
  const td = document.createElement('td');
  const link = document.createElement('a');
  link.href = traceUrl.replace('{traceId}', encodeURIComponent(traceId));
  link.target = '_blank'; link.rel = 'noopener noreferrer'; link.className = 'trace'; link.textContent = traceId;
  td.appendChild(link);
  return td;
}

async function act(action, messageId) {
  const status = document.getElementById('status');
  if (action === 'discard' && !confirm('Delete ' + messageId + ' from the DLQ for good?')) return;
  const response = await fetch('/api/dead-letters/' + encodeURIComponent(messageId) + '/' + action, { method: 'POST', headers: { 'x-requeue-token': token } });
  status.textContent = response.ok ? '' : (await response.json()).error || (action + ' failed: ' + response.status);
  await refreshDeadLetters();
}

async function refresh() {
  try { render(await (await fetch('/api/state', { headers: { 'x-requeue-token': token } })).json()); } catch (error) { document.getElementById('status').textContent = 'worker unreachable: ' + error.message; }
}
async function refreshRetries() {
  try {
    const response = await fetch('/api/retries', { headers: { 'x-requeue-token': token } });
    if (response.ok) renderRetries(await response.json());
  } catch {}
}
async function refreshDeadLetters() {
  try { renderDeadLetters(await (await fetch('/api/dead-letters', { headers: { 'x-requeue-token': token } })).json()); } catch {}
  try { renderGroups(await (await fetch('/api/dead-letter-groups', { headers: { 'x-requeue-token': token } })).json()); } catch {}
}
refresh(); refreshDeadLetters(); refreshRetries();
setInterval(refresh, 1000);
setInterval(refreshRetries, 1000);
setInterval(refreshDeadLetters, 2000);
</script>
</body>
</html>
`;

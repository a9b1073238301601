import type { TrafficProfile, TrafficStream } from './profile.js';

/** A message as the simulation publishes it: its number, when it was published, its tenant, and whether it fails on every call. */
export interface SimulatedBody {
  n: number;
  t: number;
  tenant?: string;
  permanent?: true;
}

const TICK_MS = 100;

function activeAt(stream: TrafficStream, second: number): boolean {
  return second >= stream.startSeconds && (stream.durationSeconds === undefined || second < stream.startSeconds + stream.durationSeconds);
}

/**
 * Publishes the profile's streams every 100 ms of virtual time, each at its own rate
 * (fractions carried to the next tick), for `durationSeconds`. `after` is the virtual
 * clock's timer; `publish` puts one message on the queue.
 */
export function startTraffic(
  profile: Pick<TrafficProfile, 'traffic' | 'durationSeconds' | 'failures'>,
  clock: { now: () => number; after: (ms: number, fire: () => void) => unknown },
  random: () => number,
  publish: (body: SimulatedBody) => void,
): { published: () => number; finished: () => boolean } {
  const startMs = clock.now();
  const carried = profile.traffic.map(() => 0);
  let published = 0;
  let finished = false;
  const tick = () => {
    const second = (clock.now() - startMs) / 1000;
    profile.traffic.forEach((stream, i) => {
      if (!activeAt(stream, second)) return;
      carried[i]! += (stream.ratePerSecond * TICK_MS) / 1000;
      for (; carried[i]! >= 1; carried[i]! -= 1) {
        const body: SimulatedBody = { n: published++, t: clock.now() };
        if (stream.tenant !== undefined) body.tenant = stream.tenant;
        if (random() < profile.failures.permanent) body.permanent = true;
        publish(body);
      }
    });
    if (second + TICK_MS / 1000 < profile.durationSeconds) clock.after(TICK_MS, tick);
    else finished = true;
  };
  tick();
  return { published: () => published, finished: () => finished };
}

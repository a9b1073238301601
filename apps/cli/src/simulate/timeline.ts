/** What a simulation counts per interval of virtual time: the chart's and the JSON's `series`. */
export interface TimelinePoint {
  /** Seconds since the run began, at the interval's start. */
  second: number;
  published: number;
  succeeded: number;
  deadLettered: number;
  /** Calls the handler made to the dependency. */
  calls: number;
  /** Of those, the ones answered 429. */
  rateLimited: number;
  /** Messages on the queue (visible, delayed or in flight) at the interval's end. */
  backlog: number;
}

type Counted = Exclude<keyof TimelinePoint, 'second' | 'backlog'>;

/** Counts per interval, the interval chosen so that a run has at most `points` of them (never under 1 s). */
export class Timeline {
  readonly intervalMs: number;
  private readonly points: TimelinePoint[] = [];

  constructor(
    private readonly startMs: number,
    spanMs: number,
    points = 600,
  ) {
    this.intervalMs = Math.max(1000, Math.ceil(spanMs / points / 1000) * 1000);
  }

  count(what: Counted, atMs: number, n = 1): void {
    this.at(atMs)[what] += n;
  }

  /** Records the backlog for the interval `atMs` falls in (the last sample in it stands). */
  backlog(atMs: number, messages: number): void {
    this.at(atMs).backlog = messages;
  }

  /** The intervals from the start to the last one with anything in it. */
  series(): TimelinePoint[] {
    return this.points;
  }

  private at(atMs: number): TimelinePoint {
    const index = Math.max(0, Math.floor((atMs - this.startMs) / this.intervalMs));
    for (let i = this.points.length; i <= index; i++) this.points.push(this.empty(i));
    return this.points[index]!;
  }

  private empty(index: number): TimelinePoint {
    const backlog = this.points[index - 1]?.backlog ?? 0;
    return { second: (index * this.intervalMs) / 1000, published: 0, succeeded: 0, deadLettered: 0, calls: 0, rateLimited: 0, backlog };
  }
}

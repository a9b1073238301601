import type { WorkerLogger } from './logger.js';
import type { WorkerEvents } from './worker-events.js';

type Listener<E> = (event: E) => void;

/**
 * A synchronous, typed emitter. Listeners must not slow or break the worker: one that
 * throws is logged and skipped, and the others still run.
 */
export class EventStream<Events extends object = WorkerEvents> {
  private readonly listeners = new Map<keyof Events, Array<Listener<never>>>();

  constructor(private readonly logger: WorkerLogger) {}

  /** Adds a listener; the function returned removes it. */
  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    const list = this.listeners.get(name) ?? [];
    this.listeners.set(name, [...list, listener as Listener<never>]);
    return () =>
      this.listeners.set(
        name,
        (this.listeners.get(name) ?? []).filter((added) => added !== listener),
      );
  }

  emit<K extends keyof Events>(name: K, event: Events[K]): void {
    const listeners = this.listeners.get(name);
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        (listener as Listener<Events[K]>)(event);
      } catch (err) {
        this.logger.warn({ event: String(name), err }, 'a worker event listener threw; the worker carries on');
      }
    }
  }
}

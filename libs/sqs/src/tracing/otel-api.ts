import type * as OpenTelemetryApi from '@opentelemetry/api';
import { optionalPeer } from '../peers/optional-peer.js';

/** The OpenTelemetry API, as the tracing modules use it. */
export type OpenTelemetry = typeof OpenTelemetryApi;

/**
 * `@opentelemetry/api` when the app has it, undefined otherwise: then the worker and the
 * publisher trace nothing, and trace context still travels on copies as attributes. The API
 * keeps its registrations (tracer provider, context manager) on a global keyed by its major
 * version, so this copy and the app's own import share them, whichever module format each loaded.
 */
export const otel: OpenTelemetry | undefined = optionalPeer<OpenTelemetry>('@opentelemetry/api');

/**
 * An OpenTelemetry `TracerProvider`, typed structurally so that the public types need no
 * `@opentelemetry/api` installed.
 */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): object;
}

/**
 * Preloaded (`node --import`) into the worker for the bench's "tracing on" rows: the
 * OpenTelemetry Node SDK as the worker app starts it (see bench-sdk.ts).
 */
import { startBenchSdk } from './bench-sdk.js';

startBenchSdk();

/** DI token for the validated WorkerConfig. */
export const APP_CONFIG = Symbol('requeue.WorkerConfig');

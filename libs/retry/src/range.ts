/** The numbers a setting accepts: from `min` to `max`, whole unless `whole` is false. */
export interface NumberRange {
  /** The least accepted. */
  min: number;
  /** The most accepted. */
  max: number;
  /** @default true */
  whole?: boolean;
}

/**
 * What is wrong with a number a setting was given, in the words every requeue
 * configuration error uses ("must be a whole number from 1 to 100, got 0"), or undefined
 * when it is in range. The one range check of the packages: each throws its own
 * `ConfigError` with this text, naming its setting.
 */
export function outOfRange(value: unknown, { min, max, whole = true }: NumberRange): string | undefined {
  const fits = typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max && (!whole || Number.isInteger(value));
  return fits
    ? undefined
    : `must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
}

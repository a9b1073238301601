import { Token } from 'aws-cdk-lib';
import { InfraConfigError } from './errors.js';

/** A whole number in range; a token (known only at deploy) is passed through unchecked. */
export function wholeNumber(prop: string, value: number, min: number, max: number): number {
  if (Token.isUnresolved(value)) return value;
  if (!Number.isInteger(value) || value < min || value > max) throw new InfraConfigError(prop, `must be a whole number from ${min} to ${max}, got ${value}`);
  return value;
}

/** A number ≥ 0; a token is passed through unchecked. */
export function atLeastZero(prop: string, value: number): number {
  if (Token.isUnresolved(value)) return value;
  if (!Number.isFinite(value) || value < 0) throw new InfraConfigError(prop, `must be a number ≥ 0, got ${value}`);
  return value;
}

import { Token } from 'aws-cdk-lib';
import { outOfRange } from '@requeue/retry/engine';
import { InfraConfigError } from './errors.js';

/** A whole number in range; a token (known only at deploy) is passed through unchecked. */
export function wholeNumber(prop: string, value: number, min: number, max: number): number {
  if (Token.isUnresolved(value)) return value;
  const problem = outOfRange(value, { min, max });
  if (problem) throw new InfraConfigError(prop, problem);
  return value;
}

/** A number ≥ 0; a token is passed through unchecked. */
export function atLeastZero(prop: string, value: number): number {
  if (Token.isUnresolved(value)) return value;
  if (!Number.isFinite(value) || value < 0) throw new InfraConfigError(prop, `must be a number ≥ 0, got ${value}`);
  return value;
}

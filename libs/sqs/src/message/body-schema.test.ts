import { describe, expect, it } from 'vitest';
import { describeIssues } from './body-schema.js';

describe("describeIssues: the validator's words in x-dead-letter.error, bounded", () => {
  it('names each issue by its path, with array indexes in brackets', () => {
    expect(
      describeIssues([
        { message: 'Required', path: ['items', 0, { key: 'sku' }] },
        { message: 'Expected number', path: ['amountCents'] },
        { message: 'Bad body' },
      ]),
    ).toBe('body failed validation: items[0].sku: Required; amountCents: Expected number; Bad body');
  });

  it('lists at most 10 issues and says how many more there were', () => {
    const issues = Array.from({ length: 25 }, (_, i) => ({ message: 'Required', path: [`field${i}`] }));
    const text = describeIssues(issues);
    expect(text.match(/Required/g)).toHaveLength(10);
    expect(text).toMatch(/field9: Required \(\+15 more\)$/);
  });

  it('cuts a long text at 1,000 characters', () => {
    const text = describeIssues([{ message: 'x'.repeat(5000), path: ['a'] }]);
    expect(text).toHaveLength(1000);
    expect(text.endsWith('…')).toBe(true);
  });
});

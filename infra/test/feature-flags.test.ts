import { readFileSync } from 'node:fs';
import { FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };

describe('cdk.json', () => {
  it('sets every feature flag of this aws-cdk-lib, so that synth names none as unconfigured', () => {
    // v1-era flags are on in v2 and cannot be set; every flag since is a choice.
    const choices = Object.entries(FLAGS)
      .filter(([, flag]) => flag.introducedIn.v2 !== undefined)
      .map(([name]) => name);
    expect(choices.length).toBeGreaterThan(50);
    expect(choices.filter((name) => !(name in cdkJson.context))).toEqual([]);
  });
});

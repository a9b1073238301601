import { describe, expect, it } from 'vitest';
import { TemplateResolver } from './resolve.js';
import { LocalProvisioningError } from './template.js';

function resolver() {
  const r = new TemplateResolver({ stackName: 'Requeue', region: 'eu-west-1', accountId: '000000000000' });
  r.define('Queue', { ref: 'http://localhost/000000000000/jobs', attributes: { Arn: 'arn:aws:sqs:eu-west-1:000000000000:jobs', QueueName: 'jobs' } });
  return r;
}

describe('TemplateResolver', () => {
  it('resolves Ref, Fn::GetAtt and pseudo parameters the way CloudFormation does', () => {
    const r = resolver();
    expect(r.resolve({ Ref: 'Queue' }, 'x')).toBe('http://localhost/000000000000/jobs');
    expect(r.resolve({ 'Fn::GetAtt': ['Queue', 'Arn'] }, 'x')).toBe('arn:aws:sqs:eu-west-1:000000000000:jobs');
    expect(r.resolve({ 'Fn::GetAtt': 'Queue.QueueName' }, 'x')).toBe('jobs');
    expect(
      r.resolve(
        {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':sqs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':', { Ref: 'AWS::StackName' }],
          ],
        },
        'x',
      ),
    ).toBe('arn:aws:sqs:eu-west-1:000000000000:Requeue');
  });

  it('resolves Fn::Sub, Fn::Select and Fn::Split, and nested objects', () => {
    const r = resolver();
    expect(r.resolve({ 'Fn::Sub': '${AWS::StackName}-${Queue.QueueName}' }, 'x')).toBe('Requeue-jobs');
    expect(r.resolve({ 'Fn::Sub': ['${Name}!', { Name: { Ref: 'AWS::Region' } }] }, 'x')).toBe('eu-west-1!');
    expect(r.resolve({ 'Fn::Select': [1, { 'Fn::Split': [':', { 'Fn::GetAtt': ['Queue', 'Arn'] }] }] }, 'x')).toBe('aws');
    expect(r.resolve({ deadLetterTargetArn: { 'Fn::GetAtt': ['Queue', 'Arn'] }, maxReceiveCount: 5 }, 'x')).toEqual({
      deadLetterTargetArn: 'arn:aws:sqs:eu-west-1:000000000000:jobs',
      maxReceiveCount: 5,
    });
  });

  it('names the path when a reference cannot be resolved locally, instead of guessing', () => {
    const r = resolver();
    expect(() => r.resolve({ Ref: 'Dashboard' }, 'Outputs.DashboardUrl')).toThrow(
      new LocalProvisioningError('Outputs.DashboardUrl: refers to Dashboard, which is not provisioned locally'),
    );
    expect(() => r.resolve({ 'Fn::GetAtt': ['Queue', 'Nope'] }, 'Q.P')).toThrow(/Q.P: Queue has no attribute Nope locally/);
    expect(() => r.resolve({ 'Fn::ImportValue': 'x' }, 'Q.P')).toThrow(/Fn::ImportValue is not supported/);
    expect(() => r.resolveString({ a: 1 }, 'Q.P')).toThrow(/expected a string/);
  });
});

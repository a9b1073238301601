// The packages users install, in dependency order, with the API reports that pin their exports.
export const PUBLIC_PACKAGES = [
  { name: '@requeue/retry', dir: 'libs/retry', apiReports: ['api-extractor.json', 'api-extractor.engine.json'] },
  {
    name: '@requeue/sqs',
    dir: 'libs/sqs',
    apiReports: [
      'api-extractor.json',
      'api-extractor.metric-names.json',
      'api-extractor.publisher.json',
      'api-extractor.dead-letters.json',
      'api-extractor.emf.json',
      'api-extractor.backpressure.json',
      'api-extractor.env.json',
      'api-extractor.received.json',
      'api-extractor.time.json',
    ],
  },
  { name: '@requeue/lambda', dir: 'libs/lambda', apiReports: ['api-extractor.json'] },
  { name: '@requeue/nest', dir: 'libs/nest', apiReports: ['api-extractor.json', 'api-extractor.publisher.json'] },
  {
    name: '@requeue/local-aws',
    dir: 'libs/local-aws',
    apiReports: ['api-extractor.json', 'api-extractor.memory-sqs.json', 'api-extractor.simulation-ledger.json'],
  },
  { name: '@requeue/cdk', dir: 'libs/cdk', apiReports: ['api-extractor.json'] },
  { name: '@requeue/cli', dir: 'apps/cli', apiReports: [] },
];

import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';

/**
 * Packages that pull in CommonJS call `require`, which an ES module has not got: the
 * bundle defines it from `import.meta.url`, as esbuild's own guidance for ESM output says.
 */
const REQUIRE_IN_ESM = "import { createRequire as requeueCreateRequire } from 'node:module'; const require = requeueCreateRequire(import.meta.url);";

/**
 * The handler file bundled by the CDK's Node.js bundling (esbuild, installed in the app),
 * as one ES module with every import inside it: nothing is left to the runtime's copy of
 * the AWS SDK, so the function runs the versions the app was tested with.
 */
export function bundledFunction(scope: Construct, id: string, entry: string, settings: Omit<lambda.FunctionProps, 'code' | 'handler'>): lambda.Function {
  return new NodejsFunction(scope, id, {
    ...settings,
    entry,
    handler: 'handler',
    bundling: {
      format: OutputFormat.ESM,
      mainFields: ['module', 'main'],
      externalModules: [],
      banner: REQUIRE_IN_ESM,
      minify: false,
    },
  });
}

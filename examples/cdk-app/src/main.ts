import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { OrdersStack } from './orders-stack.js';

const app = new App();
new OrdersStack(app, 'Orders', { workerDirectory: fileURLToPath(new URL('../../nest-app', import.meta.url)) });
// cdk-nag lives in your app: synth fails on any AwsSolutions finding nobody acknowledged.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();

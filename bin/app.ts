/** The CDK app: the stack, with cdk-nag's AwsSolutions checks on every synth. */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsOf } from '../lib/settings.ts';
import { VideoServiceStack } from '../lib/video-service-stack.ts';

const app = new App();
const settings = settingsOf(app.node);
new VideoServiceStack(app, `VideoService-${settings.stage}`, {
  settings,
  description: `Video generation API (${settings.stage}): HTTP API, Lambda, DynamoDB, Step Functions, S3`,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

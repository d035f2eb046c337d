/** The CDK app: the stack of one stage (lib/stages.ts), tagged, with cdk-nag's AwsSolutions checks on every synth. */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsOf, stackNameOf } from '../lib/settings.ts';
import { tagEverything } from '../lib/tags.ts';
import { VideoServiceStack } from '../lib/video-service-stack.ts';

const app = new App();
const settings = settingsOf(app.node);
const stack = new VideoServiceStack(app, stackNameOf(settings.stage), {
  settings,
  // The account unset: the one `cdk deploy` has credentials for. Synth needs neither.
  env: { region: settings.region, ...(settings.account ? { account: settings.account } : {}) },
  description: `Video generation API (${settings.stage}): HTTP API, Lambda, DynamoDB, Step Functions, S3`,
  terminationProtection: settings.removal === 'retain',
});
tagEverything(stack, { service: 'video-service', stage: settings.stage });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

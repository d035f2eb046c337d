/**
 * The CDK app: the stack of one stage (lib/stages.ts), tagged, with cdk-nag's AwsSolutions checks on every synth. A
 * stage with the edge on has a second stack in us-east-1, the web ACL's (lib/edge.ts), whose ARN the stage's stack
 * reads across regions (CloudFormation's Fn::GetStackOutput).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EdgeAclStack } from '../lib/edge.ts';
import { requireAlarmAddress, settingsOf, stackNameOf } from '../lib/settings.ts';
import { tagEverything } from '../lib/tags.ts';
import { VideoServiceStack } from '../lib/video-service-stack.ts';

const app = new App();
/** The stage's settings; a setting refused (a stage without an alarm address, say) ends the synth with its message alone. */
function checkedSettings() {
  try {
    const settings = settingsOf(app.node);
    // Before anything is built: a paged stage without an alarm address fails at once, naming what to set.
    requireAlarmAddress(settings);
    return settings;
  } catch (err) {
    console.error(`Error: ${(err as Error).message}`);
    process.exit(1);
  }
}
const settings = checkedSettings();
// The account unset: the one `cdk deploy` has credentials for. Synth needs neither.
const account = settings.account ? { account: settings.account } : {};
const tags = { service: 'video-service', stage: settings.stage };
const terminationProtection = settings.removal === 'retain';
const edge = settings.edge.enabled
  ? new EdgeAclStack(app, `${stackNameOf(settings.stage)}-edge`, {
      stage: settings.stage,
      edge: settings.edge,
      logs: { retentionDays: settings.logRetentionDays, removal: settings.removal, level: settings.logLevel },
      env: account,
      description: `Video generation API (${settings.stage}): AWS WAF's per-address limits in front of its CloudFront distribution`,
      terminationProtection,
    })
  : undefined;
const stack = new VideoServiceStack(app, stackNameOf(settings.stage), {
  settings,
  ...(edge ? { webAclArn: edge.webAclArn } : {}),
  env: { region: settings.region, ...account },
  description: `Video generation API (${settings.stage}): HTTP API, Lambda, DynamoDB, Step Functions, S3${edge ? ', CloudFront' : ''}`,
  terminationProtection,
});
for (const s of [stack, ...(edge ? [edge] : [])]) {
  tagEverything(s, tags);
  // cfn-lint checks a template against us-east-1's resource schemas unless told: each names its own region.
  s.templateOptions.metadata = { ...s.templateOptions.metadata, 'cfn-lint': { config: { regions: [s.region] } } };
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

/**
 * The tags of every resource (service, stage): cost reports and access policies read them. CDK's Tags reach every
 * taggable construct; CDK's own custom resource providers (the dev buckets' emptying function and its role) are plain
 * CfnResources that Tags skips, so their Tags property is written here.
 *
 * The deployed version is no tag: a value that changes at every commit would update each of the ~320 tagged resources
 * at every deploy. It is recorded once per deploy instead (recordVersion).
 */
import { Aspects, CfnOutput, CfnResource, type IAspect, type Stack, Tags, TagManager } from 'aws-cdk-lib';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { IConstruct } from 'constructs';

/**
 * The version a deploy brings, in an SSM parameter (/<stack>/version) and the stack output `Version`. The parameter is
 * the record: a resource, so CloudFormation applies its change at every deploy, even one that changes nothing else;
 * an output alone is not updated unless a resource changes, and would go on naming an older commit.
 */
export function recordVersion(stack: Stack, version: string): void {
  const parameterName = `/${stack.stackName}/version`;
  new StringParameter(stack, 'Version', {
    parameterName,
    description: 'The version of the video service deployed by the last cdk deploy (its commit in the pipeline)',
    stringValue: version,
  });
  new CfnOutput(stack, 'VersionOutput', { key: 'Version', value: version, description: `The deployed version, also in SSM: ${parameterName}` });
}

const UNTAGGED_PROVIDER_TYPES = new Set(['AWS::Lambda::Function', 'AWS::IAM::Role']);

export function tagEverything(stack: Stack, tags: Record<string, string>): void {
  for (const [key, value] of Object.entries(tags)) Tags.of(stack).add(key, value);
  const providerTags: IAspect = {
    visit(node: IConstruct) {
      if (node instanceof CfnResource && UNTAGGED_PROVIDER_TYPES.has(node.cfnResourceType) && !TagManager.isTaggable(node)) {
        node.addPropertyOverride(
          'Tags',
          Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        );
      }
    },
  };
  Aspects.of(stack).add(providerTags);
}

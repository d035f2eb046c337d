/**
 * The tags of every resource (service, stage, version): cost reports and access policies read them. CDK's Tags reach
 * every taggable construct; CDK's own custom resource providers (the dev buckets' emptying function and its role) are
 * plain CfnResources that Tags skips, so their Tags property is written here.
 */
import { Aspects, CfnResource, type IAspect, type Stack, Tags, TagManager } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

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

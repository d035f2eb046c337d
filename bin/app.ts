/** The CDK app: creates the stack, nothing else. */
import { App } from 'aws-cdk-lib';
import { VideoServiceStack } from '../lib/video-service-stack.ts';

const app = new App();
const stage = (app.node.tryGetContext('stage') as string | undefined) ?? 'dev';
new VideoServiceStack(app, `VideoService-${stage}`, { stage });

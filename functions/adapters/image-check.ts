/**
 * The first-use check of an asset, run by the check function (functions/jobs/check-asset.ts) in the render's image:
 * Lambda's synchronous Invoke, on AWS as on one machine (local/lambda.ts answers the same API).
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { Asset, ImageCheck, ImageCheckAnswer, ImageVerdict } from '../core/assets.ts';
import { serviceUnavailable } from '../core/errors.ts';
import { sdk } from './aws.ts';

export class InvokedImageCheck implements ImageCheck {
  constructor(
    private readonly client: () => Promise<LambdaClient>,
    /** Read at the first check: only the functions that take orders are given it. */
    private readonly functionName: () => string,
  ) {}

  async check(asset: Asset, etag: string): Promise<ImageVerdict | undefined> {
    const { InvokeCommand } = await sdk.lambda();
    const payload = { userId: asset.userId, assetId: asset.id, contentType: asset.contentType, etag };
    const out = await (await this.client()).send(
      new InvokeCommand({ FunctionName: this.functionName(), Payload: new TextEncoder().encode(JSON.stringify(payload)) }),
    );
    const body = JSON.parse(new TextDecoder().decode(out.Payload ?? new Uint8Array())) as ImageCheckAnswer | { errorMessage?: string };
    // The check itself failed (a timeout, out of memory): nothing is known of the picture, and nothing is recorded.
    if (out.FunctionError)
      throw serviceUnavailable(`The picture check could not finish; retry (${'errorMessage' in body ? body.errorMessage : out.FunctionError})`, 5);
    return 'gone' in body ? undefined : (body as ImageVerdict);
  }
}

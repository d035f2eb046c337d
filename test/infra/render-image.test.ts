/**
 * The render image's rebuild (docs/deploy.md, Rebuilding the render image): its base images pinned by digest and its
 * revision are build arguments from one place (RENDER_IMAGE_BUILD), and each of them is part of the image's asset hash,
 * so a new digest or revision gives the function a new image URI (CDK's ECR tags are that hash, never rebuilt in
 * place). Synthesized only: no Docker, no registry.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DockerImageFunction } from 'aws-cdk-lib/aws-lambda';
import { BUNDLING, entryOf } from '../../lib/functions.ts';
import { ROOT } from '../../lib/paths.ts';
import { RENDER_IMAGE_BUILD, type RenderImageBuild, renderImageCode } from '../../lib/render-image.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The render function's image URI in a stack built with these build values. */
function imageUri(build: RenderImageBuild): string {
  const outdir = mkdtempSync(join(tmpdir(), 'render-image-'));
  dirs.push(outdir);
  const app = new App({ outdir });
  const stack = new Stack(app, 'RenderImage');
  new DockerImageFunction(stack, 'Render', {
    code: renderImageCode(stack, 'render-video', entryOf('step', 'render-video'), { target: BUNDLING.target, external: BUNDLING.externalModules }, build),
  });
  const [fn] = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
  return JSON.stringify(fn!.Properties.Code.ImageUri);
}

describe('the render image', () => {
  it('pins both base images by digest, from RENDER_IMAGE_BUILD, and the Dockerfile takes them only as build arguments', () => {
    for (const image of [RENDER_IMAGE_BUILD.DEBIAN_IMAGE, RENDER_IMAGE_BUILD.LAMBDA_IMAGE])
      assert.match(image, /^public\.ecr\.aws\/[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
    const froms = readFileSync(join(ROOT, 'lib', 'render-image', 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('FROM '));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own build-argument references
    assert.deepEqual(froms, ['FROM ${DEBIAN_IMAGE} AS ffmpeg', 'FROM ${LAMBDA_IMAGE}']);
  });

  it('gets a new image URI from a new revision or base digest, and keeps it for the same values', () => {
    const today = imageUri(RENDER_IMAGE_BUILD);
    assert.match(today, /container-assets/);
    assert.equal(imageUri({ ...RENDER_IMAGE_BUILD }), today, 'the same values: the same image');
    const revised = imageUri({ ...RENDER_IMAGE_BUILD, RENDER_IMAGE_REVISION: `${RENDER_IMAGE_BUILD.RENDER_IMAGE_REVISION}-next` });
    const newBase = imageUri({ ...RENDER_IMAGE_BUILD, DEBIAN_IMAGE: RENDER_IMAGE_BUILD.DEBIAN_IMAGE.replace(/@sha256:.*/, `@sha256:${'0'.repeat(64)}`) });
    assert.equal(new Set([today, revised, newBase]).size, 3, `${today} ${revised} ${newBase}`);
  });

  it('refuses a base image without a digest at synth', () => {
    assert.throws(() => imageUri({ ...RENDER_IMAGE_BUILD, LAMBDA_IMAGE: 'public.ecr.aws/lambda/nodejs:24' }), /sha256/);
  });
});

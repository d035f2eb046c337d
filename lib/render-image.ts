/**
 * The render function's code: a container image made of AWS's Node.js 24 base image, the render bundle and a
 * maintained ffmpeg (Debian stable's, with its libraries: lib/render-image/Dockerfile). `cdk synth` only writes the
 * image's build context (esbuild, as for every other function, so synth needs no Docker and no platform-specific npm
 * package: it works on any host with Node); `cdk deploy` builds the image for x86-64 and pushes it.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Stage } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { DockerImageCode } from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import type { Construct } from 'constructs';
import { ROOT } from './paths.ts';

/** The ffmpeg release the image must carry (Debian 13's); the image build and the function's cold start check it. */
export const FFMPEG_RELEASE = '7.1';

/**
 * The image's two base images, each pinned by its digest (the tag beside it says what it is; with a digest, Docker
 * pulls the digest and ignores the tag), and its revision. They are the image's build arguments, and CDK's asset hash
 * covers the build arguments with the build context: changing any of them gives the image a new tag in ECR, so a
 * deploy makes a new image URI and Lambda runs the new image (an unchanged tag would keep the old one: CDK's image tags
 * are the hash, never rebuilt in place). docs/deploy.md, Rebuilding the render image, says when and how to change them:
 * - DEBIAN_IMAGE: Debian 13's slim image (the ffmpeg stage), the multi-platform index digest;
 * - LAMBDA_IMAGE: AWS's Node.js 24 Lambda base image, its linux/amd64 image (the functions run on x86-64);
 * - RENDER_IMAGE_REVISION: bumped to rebuild on the same base images, so that the ffmpeg stage's `apt-get` takes
 *   Debian's security updates of ffmpeg and its libraries published since (the digests pin the base, not the packages).
 * The digests were read from public Dockerfiles that pin these tags (this project's machines reach no image registry);
 * the first `cdk deploy` pulls them, and a digest a registry does not have fails the asset build, before CloudFormation
 * changes anything. `docker buildx imagetools inspect <image>:<tag>` prints the current ones.
 */
export const RENDER_IMAGE_BUILD = {
  DEBIAN_IMAGE: 'public.ecr.aws/docker/library/debian:trixie-slim@sha256:d7e12182ce18b85b93007c1dedf31f2d29e01ccf3182cc4017c709b6259bc132',
  LAMBDA_IMAGE: 'public.ecr.aws/lambda/nodejs:24@sha256:0ef0587366631c01cda7646c4dbd0509f622fecc56ccbed63c8dca65c26b5b2b',
  RENDER_IMAGE_REVISION: '1',
} as const;
export type RenderImageBuild = Record<keyof typeof RENDER_IMAGE_BUILD, string>;

/**
 * Files of node packages the render step reads from disk at run time: eSpeak NG's WebAssembly, the fonts, and the
 * pictures (Twemoji's SVGs and resvg's WebAssembly; the pictures' index is in the bundle).
 */
export const RENDER_PACKAGE_FILES = [
  'espeak-ng',
  '@expo-google-fonts/montserrat/package.json',
  '@expo-google-fonts/montserrat/800ExtraBold/Montserrat_800ExtraBold.ttf',
  '@expo-google-fonts/montserrat/600SemiBold/Montserrat_600SemiBold.ttf',
  '@twemoji/svg',
  '@resvg/resvg-wasm/package.json',
  '@resvg/resvg-wasm/index_bg.wasm',
] as const;

/**
 * The image's app folder: the entry bundled as `index.mjs`, with the package files it reads at run time beside it in
 * `node_modules` (a test builds and runs it the same way).
 */
export function buildRenderApp(app: string, entry: string, esbuild: { target: string; external: string[] }): void {
  mkdirSync(app, { recursive: true });
  buildSync({
    entryPoints: [entry],
    outfile: join(app, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: esbuild.target,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    // eSpeak NG finds its WebAssembly next to its own module, so it stays a package beside the bundle.
    external: [...esbuild.external, 'espeak-ng'],
    logLevel: 'error',
  });
  for (const p of RENDER_PACKAGE_FILES) cpSync(join(ROOT, 'node_modules', p), join(app, 'node_modules', p), { recursive: true });
}

/**
 * Writes a function's build context (Dockerfile, collect-ffmpeg.sh, app/ with its bundle) and returns the image's
 * code: the render's, and the asset check's, which decodes uploads with the same ffmpeg. `build`: the base images and
 * revision (RENDER_IMAGE_BUILD; a test gives others).
 */
export function renderImageCode(
  scope: Construct,
  name: string,
  entry: string,
  esbuild: { target: string; external: string[] },
  build: RenderImageBuild = RENDER_IMAGE_BUILD,
): DockerImageCode {
  const context = join(Stage.of(scope)!.outdir, `${name}-image-context`);
  rmSync(context, { recursive: true, force: true });
  buildRenderApp(join(context, 'app'), entry, esbuild);
  for (const f of ['Dockerfile', 'collect-ffmpeg.sh']) cpSync(join(ROOT, 'lib', 'render-image', f), join(context, f));
  for (const [arg, image] of [build.DEBIAN_IMAGE, build.LAMBDA_IMAGE].entries())
    if (!/^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/.test(image))
      throw new Error(`Render image base ${arg}: "${image}" is not <image>:<tag>@sha256:<64 hex digits>`);
  return DockerImageCode.fromImageAsset(context, { platform: Platform.LINUX_AMD64, buildArgs: { FFMPEG_RELEASE, ...build } });
}

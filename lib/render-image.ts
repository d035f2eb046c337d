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
 * code: the render's, and the asset check's, which decodes uploads with the same ffmpeg.
 */
export function renderImageCode(scope: Construct, name: string, entry: string, esbuild: { target: string; external: string[] }): DockerImageCode {
  const context = join(Stage.of(scope)!.outdir, `${name}-image-context`);
  rmSync(context, { recursive: true, force: true });
  buildRenderApp(join(context, 'app'), entry, esbuild);
  for (const f of ['Dockerfile', 'collect-ffmpeg.sh']) cpSync(join(ROOT, 'lib', 'render-image', f), join(context, f));
  return DockerImageCode.fromImageAsset(context, { platform: Platform.LINUX_AMD64, buildArgs: { FFMPEG_RELEASE } });
}

/**
 * One Lambda function per route handler and per workflow step, bundled by esbuild from the same modules the local
 * runtime runs. The AWS SDK v3 comes from the Lambda runtime (NodejsFunction's default), which keeps each API bundle
 * near 100 KB. The render step also ships the ffmpeg binary, the fonts and eSpeak NG beside its bundle.
 */
import { join } from 'node:path';
import { Duration, RemovalPolicy, Size } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ROOT } from './paths.ts';

export type FunctionKind = 'http' | 'step' | 'bot' | 'job';

/** Files of node packages a function reads from disk at run time, copied beside its bundle. */
const PACKAGE_FILES: Record<string, readonly string[]> = {
  // The render step: ffmpeg, the fonts, eSpeak NG's WebAssembly.
  'render-video': [
    '@ffmpeg-installer/ffmpeg',
    '@ffmpeg-installer/linux-x64',
    'espeak-ng',
    '@expo-google-fonts/montserrat/package.json',
    '@expo-google-fonts/montserrat/800ExtraBold/Montserrat_800ExtraBold.ttf',
    '@expo-google-fonts/montserrat/600SemiBold/Montserrat_600SemiBold.ttf',
  ],
  // The docs page: Swagger UI's two assets.
  'get-docs': ['swagger-ui-dist/package.json', 'swagger-ui-dist/swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui.css'],
};

/** Sizes: the API answers in milliseconds; the render step encodes video on every vCPU it gets. */
export const SIZES = {
  http: { memorySize: 512, timeout: Duration.seconds(10) },
  bot: { memorySize: 512, timeout: Duration.seconds(10) },
  job: { memorySize: 512, timeout: Duration.seconds(60) },
  step: { memorySize: 512, timeout: Duration.seconds(120) },
  render: { memorySize: 3008, timeout: Duration.seconds(900) },
} as const;

/** esbuild's options for every function (bench/lambdas.ts measures the bundles `cdk synth` builds with them). */
export const BUNDLING = {
  format: OutputFormat.ESM,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node24',
  mainFields: ['module', 'main'],
  externalModules: ['@aws-sdk/*'],
};

const FOLDER: Record<FunctionKind, string> = { http: 'http', step: 'steps', bot: 'bot', job: 'jobs' };
const entryOf = (kind: FunctionKind, name: string) => join(ROOT, 'functions', FOLDER[kind], `${name}.ts`);

export function serviceFunction(
  scope: Construct,
  kind: FunctionKind,
  name: string,
  environment: Record<string, string>,
  extra: { reservedConcurrentExecutions?: number } = {},
): NodejsFunction {
  const render = name === 'render-video';
  const id = `${kind}-${name}`;
  const logGroup = new LogGroup(scope, `${id}-logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
  // Its own role, allowed to write to its own log group only (instead of the managed AWSLambdaBasicExecutionRole).
  const role = new Role(scope, `${id}-role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  return new NodejsFunction(scope, id, {
    role,
    entry: entryOf(kind, name),
    projectRoot: ROOT,
    depsLockFilePath: join(ROOT, 'package-lock.json'),
    runtime: Runtime.NODEJS_24_X,
    // The render step runs the x86-64 ffmpeg build that npm installs here; everything else runs on Graviton.
    architecture: render ? Architecture.X86_64 : Architecture.ARM_64,
    ...SIZES[render ? 'render' : kind],
    ...(render ? { ephemeralStorageSize: Size.gibibytes(2) } : {}),
    ...extra,
    tracing: Tracing.ACTIVE,
    loggingFormat: LoggingFormat.JSON,
    logGroup,
    environment: { NODE_OPTIONS: '--enable-source-maps', ...environment },
    bundling: {
      ...BUNDLING,
      // eSpeak NG finds its WebAssembly next to its own module, so it stays a package instead of being bundled.
      ...(render ? { externalModules: [...BUNDLING.externalModules, 'espeak-ng'] } : {}),
      ...(PACKAGE_FILES[name]
        ? {
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (inputDir: string, outputDir: string) =>
                PACKAGE_FILES[name]!.map((p) => {
                  const from = join(inputDir, 'node_modules', p);
                  const to = join(outputDir, 'node_modules', p);
                  return `mkdir -p "${join(to, '..')}" && cp -R "${from}" "${to}"`;
                }),
            },
          }
        : {}),
    },
  });
}

/**
 * One Lambda function per route handler and per workflow step, bundled by esbuild from the same modules the local
 * runtime runs, the AWS SDK v3 included: the functions run the SDK version the tests ran (package-lock.json), not
 * whichever the Lambda runtime carries that day (docs/decisions.md; bench/lambdas.ts measures the cost). The render
 * step and the asset check are container images instead (lib/render-image.ts): a bundle, the fonts, eSpeak NG and a
 * maintained ffmpeg.
 */
import { join } from 'node:path';
import { Duration, Size } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  DockerImageFunction,
  type Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { logGroup as newLogGroup, type LogSettings } from './logs.ts';
import { ROOT } from './paths.ts';
import { renderImageCode } from './render-image.ts';

export type FunctionKind = 'http' | 'step' | 'bot' | 'job' | 'edge';

/** Files of node packages a function reads from disk at run time, copied beside its bundle. */
const PACKAGE_FILES: Record<string, readonly string[]> = {
  // The docs page: Swagger UI's two assets.
  'get-docs': ['swagger-ui-dist/package.json', 'swagger-ui-dist/swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui.css'],
};

/** Sizes: the API answers in milliseconds; the render step encodes video on every vCPU it gets. */
export const SIZES = {
  http: { memorySize: 512, timeout: Duration.seconds(10) },
  bot: { memorySize: 512, timeout: Duration.seconds(10) },
  job: { memorySize: 512, timeout: Duration.seconds(60) },
  // The origin check: one comparison; API Gateway waits 10 s at most for an authorizer.
  edge: { memorySize: 512, timeout: Duration.seconds(5) },
  step: { memorySize: 512, timeout: Duration.seconds(120) },
  render: { memorySize: 3008, timeout: Duration.seconds(900) },
  // The asset check decodes one picture of at most 4096 x 4096 (64 MiB as RGBA) with ffmpeg.
  check: { memorySize: 1024, timeout: Duration.seconds(30) },
} as const;

/** Functions built from the render's image (its ffmpeg): the render, and the asset check that decodes as it does. */
const IMAGE_FUNCTIONS: Record<string, { size: { memorySize: number; timeout: Duration }; storage: Size }> = {
  'render-video': { size: SIZES.render, storage: Size.gibibytes(2) },
  'check-asset': { size: SIZES.check, storage: Size.mebibytes(512) },
};

/** esbuild's options for every function (bench/lambdas.ts measures the bundles `cdk synth` builds with them). */
export const BUNDLING = {
  format: OutputFormat.ESM,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node24',
  mainFields: ['module', 'main'],
  // Nothing left to the runtime: NodejsFunction's default would leave out @aws-sdk/*.
  externalModules: [] as string[],
};

const FOLDER: Record<FunctionKind, string> = { http: 'http', step: 'steps', bot: 'bot', job: 'jobs', edge: 'edge' };
export const entryOf = (kind: FunctionKind, name: string) => join(ROOT, 'functions', FOLDER[kind], `${name}.ts`);

export function serviceFunction(
  scope: Construct,
  kind: FunctionKind,
  name: string,
  environment: Record<string, string>,
  logs: LogSettings,
  extra: { reservedConcurrentExecutions?: number } = {},
): LambdaFunction {
  const id = `${kind}-${name}`;
  const logGroup = newLogGroup(scope, `${id}-logs`, logs);
  // Its own role, allowed to write to its own log group only (instead of the managed AWSLambdaBasicExecutionRole).
  const role = new Role(scope, `${id}-role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  const common = {
    role,
    ...extra,
    tracing: Tracing.ACTIVE,
    // With JSON logs Lambda drops application entries below INFO unless told otherwise: the stage's level decides (it
    // wins over POWERTOOLS_LOG_LEVEL too). Its own START/REPORT lines (durations, memory, init) are INFO, so kept in
    // every stage; a DEBUG stage gets Lambda's debug events as well.
    loggingFormat: LoggingFormat.JSON,
    applicationLogLevelV2: ApplicationLogLevel[logs.level],
    systemLogLevelV2: logs.level === 'DEBUG' ? SystemLogLevel.DEBUG : SystemLogLevel.INFO,
    logGroup,
    environment: { NODE_OPTIONS: '--enable-source-maps', ...environment },
  };
  const image = IMAGE_FUNCTIONS[name];
  if (image) {
    return new DockerImageFunction(scope, id, {
      ...common,
      code: renderImageCode(scope, name, entryOf(kind, name), { target: BUNDLING.target, external: BUNDLING.externalModules }),
      // The image is built for x86-64 (Platform.LINUX_AMD64), so it builds the same from any host.
      architecture: Architecture.X86_64,
      ...image.size,
      ephemeralStorageSize: image.storage,
    });
  }
  return new NodejsFunction(scope, id, {
    ...common,
    entry: entryOf(kind, name),
    projectRoot: ROOT,
    depsLockFilePath: join(ROOT, 'package-lock.json'),
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    ...SIZES[kind],
    bundling: {
      ...BUNDLING,
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

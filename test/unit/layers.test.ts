/**
 * Imports run one way: contract <- core <- {adapters, generator} <- app <- {http, steps, bot, jobs, edge} <- {lib, local} <- bin.
 * A module may import its own layer and the layers below it, never a layer above it nor its peer (adapters and
 * the generator are two implementations of core's ports; http, steps, bot and jobs are kinds of entry point). app is the
 * composition root of a Lambda process; lib (CDK) and local (the one-machine runtime) compose the functions.
 * core and contract import no AWS package either (the SDK, Smithy, Powertools, the Lambda types), not even a type.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The folders of each layer, innermost first; folders in one layer are peers. */
const ORDER: string[][] = [
  ['functions/contract'],
  ['functions/core'],
  ['functions/adapters', 'functions/generator'],
  ['functions/app'],
  ['functions/http', 'functions/steps', 'functions/bot', 'functions/jobs', 'functions/edge'],
  ['lib', 'local'],
  ['bin'],
];
export const LAYERS: { folder: string; rank: number }[] = ORDER.flatMap((folders, rank) => folders.map((folder) => ({ folder, rank })));

/** Edges the ranks allow but the design does not. */
const THROUGH_APP = 'handlers reach the generator only through app, which gives the API just the prompt planner';
const FORBIDDEN: { from: string; to: string; why: string }[] = ['functions/http', 'functions/jobs', 'functions/bot'].map((from) => ({
  from,
  to: 'functions/generator',
  why: THROUGH_APP,
}));

const layerOf = (file: string) => LAYERS.find((l) => file === l.folder || file.startsWith(`${l.folder}/`));

function sources(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ts$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Every module specifier of a file: static imports and exports (types too), dynamic import() calls, in either quotes. */
export function specifiersOf(text: string): string[] {
  const found = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*(['"])([^'"]+)\1|import\(\s*(['"])([^'"]+)\3\s*\)|(?:^|\n)\s*import\s+(['"])([^'"]+)\5/g),
  ];
  return found.map((m) => m[2] ?? m[4] ?? m[6]!);
}

/** Relative module specifiers of a file: the edges between the service's own folders. */
export const importsOf = (text: string): string[] => specifiersOf(text).filter((spec) => spec.startsWith('.'));

/** The layers that stay free of AWS (docs/architecture.md, Layers): the domain and the wire format. */
const WITHOUT_AWS = ['functions/contract', 'functions/core'];
/** AWS's packages: the SDK (v3 and v2), its Smithy runtime, Powertools, the Lambda types, CDK. */
const AWS_PACKAGE = /^(?:@aws-sdk|@smithy|@aws-lambda-powertools|@aws-cdk|@aws-crypto)\/|^(?:@types\/)?(?:aws-lambda|aws-sdk|aws-cdk-lib)(?:\/|$)/;

/** Every import of an AWS package from a layer that must do without, as "importer -> package". */
export function awsImports(files: string[], read: (file: string) => string): string[] {
  const bad: string[] = [];
  for (const file of files.filter((f) => WITHOUT_AWS.some((folder) => f.startsWith(`${folder}/`)))) {
    for (const spec of specifiersOf(read(file))) if (AWS_PACKAGE.test(spec)) bad.push(`${file} -> ${spec}`);
  }
  return bad;
}

/** Every import edge that runs against the layering, as "importer -> imported". */
export function inverted(files: string[], read: (file: string) => string): string[] {
  const bad: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    if (!from) continue;
    for (const spec of importsOf(read(file))) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
      const to = layerOf(target);
      if (!to || to.folder === from.folder) continue;
      if (to.rank >= from.rank) bad.push(`${file} -> ${target}`);
      const rule = FORBIDDEN.find((r) => r.from === from.folder && r.to === to.folder);
      if (rule) bad.push(`${file} -> ${target} (${rule.why})`);
    }
  }
  return bad;
}

test('imports run one way through the layers', () => {
  const files = LAYERS.flatMap((l) => sources(l.folder));
  assert.ok(files.length > 50, 'the sources were found');
  assert.deepEqual(
    inverted(files, (f) => readFileSync(join(ROOT, f), 'utf8')),
    [],
  );
});

test('core and contract import no AWS package', () => {
  const files = WITHOUT_AWS.flatMap(sources);
  assert.ok(files.length > 30, 'the sources were found');
  assert.deepEqual(
    awsImports(files, (f) => readFileSync(join(ROOT, f), 'utf8')),
    [],
  );
});

test('the AWS check sees a type import, a re-export, a dynamic import and each AWS package, in core and contract only', () => {
  const text: Record<string, string> = {
    'functions/core/a.ts': "import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\nimport { ok } from '../contract/orders.ts';",
    'functions/core/b.ts': "export { Logger } from '@aws-lambda-powertools/logger';\nconst s3 = await import('@aws-sdk/client-s3');",
    'functions/contract/c.ts': "import type { Context } from \"aws-lambda\";\nimport {\n  HttpRequest,\n} from '@smithy/protocol-http';\nimport 'zod/mini';",
    'functions/adapters/d.ts': "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
  };
  assert.deepEqual(
    awsImports(Object.keys(text), (f) => text[f]!),
    [
      'functions/core/a.ts -> @aws-sdk/lib-dynamodb',
      'functions/core/b.ts -> @aws-lambda-powertools/logger',
      'functions/core/b.ts -> @aws-sdk/client-s3',
      'functions/contract/c.ts -> aws-lambda',
      'functions/contract/c.ts -> @smithy/protocol-http',
    ],
  );
});

test('the check sees an inverted edge, a peer edge and a dynamic import', () => {
  const files = ['functions/core/a.ts', 'functions/adapters/b.ts', 'functions/http/c.ts'];
  const text: Record<string, string> = {
    'functions/core/a.ts': "import type { X } from '../generator/port.ts';\nimport { ok } from '../contract/orders.ts';",
    'functions/adapters/b.ts': "export { g } from '../generator/index.ts';",
    'functions/http/c.ts':
      "const m = await import('../steps/table.ts');\nimport { s } from '../app/services.ts';\nimport { p } from '../generator/planner.ts';",
  };
  assert.deepEqual(
    inverted(files, (f) => text[f]!),
    [
      'functions/core/a.ts -> functions/generator/port.ts',
      'functions/adapters/b.ts -> functions/generator/index.ts',
      'functions/http/c.ts -> functions/steps/table.ts',
      `functions/http/c.ts -> functions/generator/planner.ts (${FORBIDDEN[0]!.why})`,
    ],
  );
});

/**
 * Where this process's CPU goes while `load` runs: V8's sampling profiler (node:inspector), each sample given to the
 * layer of its nearest frame from a package or a project folder, so that Node's own work (sockets, HTTP parsing)
 * counts for the code that called it. Samples with no such frame are Node's own (the event loop, HTTP parsing, timers).
 */
import { Session } from 'node:inspector/promises';
import { sep } from 'node:path';
import { ROOT } from '../lib/paths.ts';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

const LAYERS: [RegExp, string][] = [
  [/\/node_modules\/(@aws-sdk|@smithy|@aws-crypto|@aws\/)/, 'AWS SDK (with the Node work it calls)'],
  [/\/node_modules\/@middy\//, 'middy'],
  [/\/node_modules\/@aws-lambda-powertools\//, 'Powertools logger and metrics'],
  [/\/node_modules\/zod\//, 'zod (validation)'],
  [/\/node_modules\/(tsx|esbuild|get-tsconfig)\//, 'tsx (the TypeScript loader)'],
  [/\/node_modules\//, 'other packages'],
  [/^\/local\/gateway\.ts$/, 'the local gateway (HTTP to API Gateway event and back)'],
  [/^\/local\//, 'the local stack, other (Step Functions endpoint, S3 store)'],
  [/^\/functions\//, 'the service code (functions/)'],
  [/^\/bench\//, 'the bench itself'],
];

function layerOf(url: string): string | undefined {
  if (!url.startsWith('file://')) return undefined;
  let path = decodeURIComponent(new URL(url).pathname);
  if (path.startsWith(ROOT + sep)) path = path.slice(ROOT.length);
  return LAYERS.find(([re]) => re.test(path))?.[1] ?? 'other files';
}

export async function profileLayers(load: () => Promise<unknown>): Promise<{ samples: number; layers: { layer: string; percent: number }[] }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    await load();
    const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples?: number[] } };
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const layerOfNode = new Map<number, string>();
    const resolve = (id: number): string => {
      const known = layerOfNode.get(id);
      if (known) return known;
      const n = byId.get(id)!;
      const name = n.callFrame.functionName;
      let layer: string;
      if (name === '(idle)') layer = '(idle)';
      else if (name === '(garbage collector)') layer = 'garbage collection';
      else if (name === '(program)') layer = 'V8 and native code outside JavaScript';
      else
        layer =
          layerOf(n.callFrame.url) ??
          (parent.has(id) ? resolve(parent.get(id)!) : 'Node itself, with no package frame above (event loop, HTTP parsing in and out, timers)');
      layerOfNode.set(id, layer);
      return layer;
    };
    const counts = new Map<string, number>();
    for (const id of profile.samples ?? []) {
      const layer = resolve(id);
      if (layer !== '(idle)') counts.set(layer, (counts.get(layer) ?? 0) + 1);
    }
    const busy = [...counts.values()].reduce((a, b) => a + b, 0);
    const layers = [...counts].map(([layer, n]) => ({ layer, percent: (n / busy) * 100 })).sort((a, b) => b.percent - a.percent);
    return { samples: busy, layers };
  } finally {
    await session.post('Profiler.disable').catch(() => undefined);
    session.disconnect();
  }
}

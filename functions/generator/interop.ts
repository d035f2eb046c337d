/**
 * wavefile and opentype.js ship CommonJS for Node and an ES module for bundlers, with different shapes: Node's
 * import sees module.exports as `default`, esbuild's bundle sees named exports. This takes either.
 */
import * as opentypeModule from 'opentype.js';
import * as wavefileModule from 'wavefile';

const pick = <T>(ns: object, name: string): T => ((ns as Record<string, unknown>)[name] ?? (ns as { default?: Record<string, unknown> }).default?.[name]) as T;

export const WaveFile = pick<typeof import('wavefile').WaveFile>(wavefileModule, 'WaveFile');
export const parseFont = pick<typeof import('opentype.js').parse>(opentypeModule, 'parse');

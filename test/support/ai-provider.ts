/**
 * A local stand-in for an OpenAI-compatible images and speech provider, on loopback: POST /v1/images/generations
 * answers a real PNG it makes (colours and shapes from the prompt, so different prompts give different images) and
 * POST /v1/audio/speech a real WAV (a tone whose pitch comes from the voice, as long as the words take to say).
 * It checks the Bearer key, records what it received, and can fail the next calls as a provider does.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';

export type Failure = { status: number } | { delayMs: number } | 'malformed';

export interface AiProvider {
  /** Base URL of the API, e.g. http://127.0.0.1:port/v1 */
  url: string;
  /** The key it accepts now. */
  key: string;
  /** Accepts this key from now on, and no other (a rotation at the provider). */
  setKey(key: string): void;
  requests: { path: string; body: Record<string, unknown> }[];
  /** The next calls fail, one failure each. */
  failNext(...failures: Failure[]): void;
  stop(): Promise<void>;
}

const byte = (seed: string, i: number) => createHash('sha256').update(seed).digest()[i]!;

/** What ffmpeg makes of one lavfi source, with `args` after it. */
const make = (source: string, args: string[]) =>
  execFileSync(FFMPEG, ['-v', 'error', '-f', 'lavfi', '-i', source, ...args, '-'], { maxBuffer: 64 * 1024 * 1024 });

function image(prompt: string, size: string): Buffer {
  const hex = (i: number) => byte(prompt, i).toString(16).padStart(2, '0');
  const [w, h] = size.split('x').map(Number) as [number, number];
  const boxes = [0, 1, 2].map((k) => {
    const x = Math.round((byte(prompt, 3 + k) / 255) * w * 0.6);
    const y = Math.round((byte(prompt, 6 + k) / 255) * h * 0.7);
    return `drawbox=x=${x}:y=${y}:w=${Math.round(w * 0.35)}:h=${Math.round(h * 0.25)}:color=0x${hex(9 + k)}${hex(12 + k)}${hex(15 + k)}:t=fill`;
  });
  return make(`color=c=0x${hex(0)}${hex(1)}${hex(2)}:s=${w}x${h}`, ['-vf', boxes.join(','), '-frames:v', '1', '-c:v', 'png', '-f', 'image2']);
}

function speech(input: string, voice: string, speed: number): Buffer {
  const pitch = 140 + (byte(voice, 0) % 200);
  const seconds = Math.max(0.5, (input.split(/\s+/).length * 0.35) / speed);
  return make(`sine=frequency=${pitch}:duration=${seconds.toFixed(2)}:sample_rate=24000`, ['-ac', '1', '-c:a', 'pcm_s16le', '-f', 'wav']);
}

export async function startAiProvider(key = 'provider-key'): Promise<AiProvider> {
  let accepted = key;
  const requests: AiProvider['requests'] = [];
  const failures: Failure[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d));
    req.on('end', async () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      requests.push({ path: req.url ?? '', body });
      if (req.headers.authorization !== `Bearer ${accepted}`) return res.writeHead(401).end('{"error":{"message":"bad key"}}');
      const failure = failures.shift();
      if (failure && typeof failure === 'object' && 'delayMs' in failure) await new Promise((r) => setTimeout(r, failure.delayMs));
      if (failure && typeof failure === 'object' && 'status' in failure) return res.writeHead(failure.status).end('{"error":{"message":"injected"}}');
      if (failure === 'malformed') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":');
      if (req.url === '/v1/images/generations') {
        const png = image(String(body.prompt), String(body.size ?? '1024x1536'));
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ created: 0, data: [{ b64_json: png.toString('base64') }] }));
      }
      if (req.url === '/v1/audio/speech')
        return res.writeHead(200, { 'content-type': 'audio/wav' }).end(speech(String(body.input), String(body.voice), Number(body.speed ?? 1)));
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get key() {
      return accepted;
    },
    setKey: (k) => {
      accepted = k;
    },
    requests,
    failNext: (...f) => failures.push(...f),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

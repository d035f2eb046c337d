/**
 * Scene backgrounds, computed once per scene in memory (a two-colour gradient with a soft light band and a vignette)
 * and handed to ffmpeg as raw RGB. Colours stay in the mid range so white captions with a dark border always read.
 */
import { createHash } from 'node:crypto';

export const WIDTH = 1080;
export const HEIGHT = 1920;
/** Backgrounds are smooth, so they are computed at a quarter of the size and scaled up by ffmpeg. */
export const BG_SCALE = 4;
const W = WIDTH / BG_SCALE;
const H = HEIGHT / BG_SCALE;

const PALETTES: [number, number, number][][] = [
  [
    [38, 70, 140],
    [120, 60, 150],
  ],
  [
    [20, 110, 120],
    [40, 60, 130],
  ],
  [
    [150, 70, 60],
    [90, 40, 110],
  ],
  [
    [40, 120, 80],
    [20, 70, 110],
  ],
  [
    [130, 90, 40],
    [150, 50, 80],
  ],
  [
    [70, 50, 140],
    [30, 110, 150],
  ],
  [
    [110, 40, 70],
    [50, 50, 110],
  ],
  [
    [30, 90, 140],
    [30, 130, 110],
  ],
];

function paletteFor(hint: string, index: number): [number, number, number][] {
  const h = createHash('sha256').update(hint).digest().readUInt32BE(0);
  return PALETTES[(h + index) % PALETTES.length]!;
}

/** Raw RGB24 of WIDTH/BG_SCALE x HEIGHT/BG_SCALE pixels. */
export function background(hint: string, index: number): Buffer {
  const [top, bottom] = paletteFor(hint, index) as [[number, number, number], [number, number, number]];
  const buf = Buffer.allocUnsafe(W * H * 3);
  const cx = W / 2;
  const cy = H / 2;
  const maxR = Math.hypot(cx, cy);
  const bandAngle = index % 2 ? 0.35 : -0.35;
  let o = 0;
  for (let y = 0; y < H; y++) {
    const v = y / (H - 1);
    for (let x = 0; x < W; x++) {
      const d = ((y - cy) * Math.cos(bandAngle) + (x - cx) * Math.sin(bandAngle)) / (260 / BG_SCALE);
      const band = Math.exp(-(d * d)) * 0.18;
      const vignette = 1 - 0.35 * (Math.hypot(x - cx, y - cy) / maxR) ** 2;
      const k = vignette * (1 + band);
      buf[o++] = Math.min(255, (top[0] + (bottom[0] - top[0]) * v) * k);
      buf[o++] = Math.min(255, (top[1] + (bottom[1] - top[1]) * v) * k);
      buf[o++] = Math.min(255, (top[2] + (bottom[2] - top[2]) * v) * k);
    }
  }
  return buf;
}

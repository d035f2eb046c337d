/**
 * Background music, synthesized: a chord progression as a soft pad, a bass line and light percussion, at a tempo and
 * mode chosen by the tone. `song` adds a lead melody over the chords. Deterministic for the same inputs.
 */
import type { OrderParams } from '../contract/orders.ts';

export const MUSIC_RATE = 44100;

const TEMPO: Record<OrderParams['tone'], number> = { neutral: 96, energetic: 124, calm: 78, funny: 112, serious: 84 };
// Semitones from the key's root: I-V-vi-IV in major, i-VI-III-VII in minor.
const MAJOR = [
  [0, 4, 7],
  [7, 11, 14],
  [9, 12, 16],
  [5, 9, 12],
];
const MINOR = [
  [0, 3, 7],
  [8, 12, 15],
  [3, 7, 10],
  [10, 14, 17],
];
const MELODY = [0, 2, 1, 2, 0, 1, 2, 1];

const freq = (semitone: number, root = 220) => root * 2 ** (semitone / 12);

// A sine table: the synthesis makes millions of sine lookups per video.
const TABLE_SIZE = 8192;
const SINE = Float32Array.from({ length: TABLE_SIZE + 1 }, (_, i) => Math.sin((2 * Math.PI * i) / TABLE_SIZE));
/** sin(2π·cycles), by table. */
function sin2pi(cycles: number): number {
  const x = (cycles - Math.floor(cycles)) * TABLE_SIZE;
  const i = x | 0;
  return SINE[i]! + (SINE[i + 1]! - SINE[i]!) * (x - i);
}

/** A small deterministic PRNG for the percussion noise. */
function prng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) / 4294967296) * 2 - 1;
  };
}

/** Stereo music of `seconds`, as two Float32 channels in -1..1. */
export function synthMusic(seconds: number, tone: OrderParams['tone'], song: boolean, seed: number): [Float32Array, Float32Array] {
  const n = Math.ceil(seconds * MUSIC_RATE);
  const left = new Float32Array(n);
  const right = new Float32Array(n);
  const bpm = TEMPO[tone];
  const beat = 60 / bpm;
  const bar = beat * 4;
  const chords = tone === 'serious' || tone === 'calm' ? MINOR : MAJOR;
  const root = 196 * 2 ** ((seed % 5) / 12);
  const noise = prng(seed);
  const percussion = tone !== 'calm';
  // Each chord's frequencies once, not per sample (2 ** x per voice per sample was half the synthesis): the same values.
  const tones = chords.map((chord) => ({
    pad: chord.map((st) => freq(st, root)).map((f) => [f * 1.002, f * 0.998] as const),
    bass: freq(chord[0]! - 12, root),
    lead: MELODY.map((m) => freq(chord[m]! + 12, root)),
  }));
  for (let i = 0; i < n; i++) {
    const t = i / MUSIC_RATE;
    const barIndex = Math.floor(t / bar);
    const inBar = t - barIndex * bar;
    const chord = tones[barIndex % chords.length]!;
    // Pad: the chord, slightly detuned left and right, swelling over each bar.
    const swell = Math.min(1, inBar / 0.6) * (1 - 0.3 * (inBar / bar));
    let padL = 0;
    let padR = 0;
    for (const [fl, fr] of chord.pad) {
      padL += sin2pi(fl * t);
      padR += sin2pi(fr * t);
    }
    padL *= 0.09 * swell;
    padR *= 0.09 * swell;
    // Bass: the chord's root on every beat, plucked.
    const inBeat = t % beat;
    const bass = 0.22 * sin2pi(chord.bass * t) * Math.exp(-inBeat * 5);
    // Percussion: a soft kick on 1 and 3, a short noise hat on the off-beats.
    let drums = 0;
    if (percussion) {
      const beatIndex = Math.floor(inBar / beat);
      if (beatIndex % 2 === 0) drums += 0.35 * sin2pi((50 + 60 * Math.exp(-inBeat * 30)) * inBeat) * Math.exp(-inBeat * 12);
      const half = (t + beat / 2) % beat;
      drums += 0.05 * noise() * Math.exp(-half * 60);
    }
    let lead = 0;
    if (song) {
      // Lead: a triangle wave walking the chord tones in eighth notes.
      const eighth = Math.floor(inBar / (beat / 2));
      const phase = (chord.lead[eighth % MELODY.length]! * t) % 1;
      const env = Math.exp(-((inBar % (beat / 2)) * 4));
      lead = 0.16 * (4 * Math.abs(phase - 0.5) - 1) * env;
    }
    left[i] = padL + bass + drums + lead * 0.9;
    right[i] = padR + bass + drums + lead * 1.1;
  }
  return [left, right];
}

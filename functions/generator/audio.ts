/** The soundtrack: each scene's voice placed at its start, over music that ducks while the voice speaks. */
import { MUSIC_RATE } from './music.ts';
import { VOICE_RATE } from './voice.ts';

export interface PlacedVoice {
  samples: Int16Array;
  /** Seconds from the start of the video. */
  at: number;
}

/** The voice played faster (and higher) so that it lasts `seconds`: a line the fastest voice cannot say in its scene. */
export function squeeze(samples: Int16Array, seconds: number): Int16Array {
  const out = new Int16Array(Math.max(1, Math.floor(seconds * VOICE_RATE)));
  const ratio = (samples.length - 1) / Math.max(1, out.length - 1);
  for (let i = 0; i < out.length; i++) {
    const pos = i * ratio;
    const k = Math.floor(pos);
    const a = samples[k]!;
    out[i] = Math.round(a + ((samples[k + 1] ?? a) - a) * (pos - k));
  }
  return out;
}

const MUSIC_GAIN = 0.55;
const DUCKED_GAIN = 0.18;

/** Mixes to a 44.1 kHz stereo 16-bit WAV of exactly `seconds`. */
export function mixSoundtrack(seconds: number, voices: PlacedVoice[], music?: [Float32Array, Float32Array]): Buffer {
  const n = Math.round(seconds * MUSIC_RATE);
  const voice = new Float32Array(n);
  const ratio = VOICE_RATE / MUSIC_RATE;
  for (const v of voices) {
    const start = Math.round(v.at * MUSIC_RATE);
    const length = Math.min(n - start, Math.floor(v.samples.length / ratio));
    for (let i = 0; i < length; i++) {
      // Linear interpolation from the voice's 22.05 kHz to 44.1 kHz.
      const pos = i * ratio;
      const k = Math.floor(pos);
      const a = v.samples[k]! / 32768;
      const b = (v.samples[k + 1] ?? v.samples[k]!) / 32768;
      voice[start + i] = a + (b - a) * (pos - k);
    }
  }
  // The WAV is written straight from the mix: its 44-byte header, then the two channels interleaved (little-endian,
  // as on every host the service runs on), without a copy per channel.
  const wav = Buffer.alloc(44 + 4 * n);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + 4 * n, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(2, 22);
  wav.writeUInt32LE(MUSIC_RATE, 24);
  wav.writeUInt32LE(MUSIC_RATE * 4, 28);
  wav.writeUInt16LE(4, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(4 * n, 40);
  // Buffer.alloc of this size is not from the shared pool: the samples start at an even offset of its own memory.
  const pcm = new Int16Array(wav.buffer, wav.byteOffset + 44, 2 * n);
  // The ducking envelope follows the voice's loudness, smoothed so the music dips and returns softly.
  let env = 0;
  const attack = 1 - Math.exp(-1 / (0.02 * MUSIC_RATE));
  const release = 1 - Math.exp(-1 / (0.4 * MUSIC_RATE));
  const fade = Math.min(n, Math.round(0.5 * MUSIC_RATE));
  for (let i = 0; i < n; i++) {
    const level = Math.abs(voice[i]!) > 0.01 ? 1 : 0;
    env += (level - env) * (level > env ? attack : release);
    const gain = (MUSIC_GAIN - (MUSIC_GAIN - DUCKED_GAIN) * env) * Math.min(1, i / fade, (n - i) / fade);
    const l = voice[i]! + (music ? music[0][i]! * gain : 0);
    const r = voice[i]! + (music ? music[1][i]! * gain : 0);
    pcm[2 * i] = Math.round(32767 * Math.tanh(l));
    pcm[2 * i + 1] = Math.round(32767 * Math.tanh(r));
  }
  return wav;
}

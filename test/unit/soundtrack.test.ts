/** The soundtrack's WAV, written by hand from the mix, is the file the wavefile library writes for the same samples. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mixSoundtrack } from '../../functions/generator/audio.ts';
import { WaveFile } from '../../functions/generator/interop.ts';
import { MUSIC_RATE, synthMusic } from '../../functions/generator/music.ts';

describe('the soundtrack', () => {
  it('is a 44.1 kHz stereo 16-bit WAV of exactly its length, byte for byte what wavefile writes for its samples', () => {
    const voice = Int16Array.from({ length: 22050 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
    const wav = mixSoundtrack(2.5, [{ samples: voice, at: 0.15 }], synthMusic(2.5, 'energetic', true, 7));
    const n = Math.round(2.5 * MUSIC_RATE);
    const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    assert.equal(pcm.length, 2 * n);
    const left = pcm.filter((_, i) => i % 2 === 0);
    const right = pcm.filter((_, i) => i % 2 === 1);
    assert.ok(
      left.some((x, i) => x !== right[i]),
      'the music is stereo',
    );
    const reference = new WaveFile();
    reference.fromScratch(2, MUSIC_RATE, '16', [left, right]);
    assert.deepEqual(wav, Buffer.from(reference.toBuffer()));
  });
});

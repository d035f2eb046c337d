/**
 * The script as text: the order's `script` field, and the form a review's edit `text` takes.
 *
 *   Scene 1 (4s)
 *   Caption: Green tea in 30 seconds
 *   Voice: Let's talk about green tea.
 *   Visual: steam over a cup
 *   Image: ast_01m88sdrykmmkkdgyfr9yzsa5f      (optional: the scene's picture is this asset of the key)
 *
 * Scenes are separated by a blank line or a "Scene N" line. Unlabelled lines count as voice; a scene without a
 * caption takes the start of its voice. Durations are derived again from the voice when text is parsed.
 */
import { ASSET_ID_RE } from '../contract/orders.ts';
import { InvalidParams } from './errors.ts';
import type { Scene, Script } from './generator.ts';

const SCRIPT_LIMITS = { scenes: 12, caption: 120, voice: 500 } as const;
const MIN_SCENE_SECONDS = 1.5;

export function formatScript(script: Pick<Script, 'scenes'>): string {
  return script.scenes
    .map((s, i) =>
      [
        `Scene ${i + 1} (${Math.round(s.seconds * 10) / 10}s)`,
        `Caption: ${s.caption}`,
        `Voice: ${s.voiceover}`,
        `Visual: ${s.visual}`,
        ...(s.image ? [`Image: ${s.image}`] : []),
      ].join('\n'),
    )
    .join('\n\n');
}

const LABEL = /^(caption|voice|voiceover|visual|image)\s*:\s*(.*)$/i;
const HEADER = /^scene\s+\d+\b.*$/i;

/** Shortens text to at most `max` characters at a word boundary. */
export function shorten(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > max * 0.5 ? cut.slice(0, space) : clean.slice(0, max)).replace(/[\s,;:.–—-]+$/, '');
}

const wordsOf = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** Spreads `total` seconds over the scenes by how much each one says. */
export function allotSeconds(scenes: Omit<Scene, 'seconds'>[], total: number): Scene[] {
  const weights = scenes.map((s) => Math.max(2, wordsOf(s.voiceover) + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const floor = Math.min(MIN_SCENE_SECONDS, total / scenes.length);
  const spare = total - floor * scenes.length;
  const raw = weights.map((w) => floor + (spare * w) / sum);
  // Round to tenths and give the rounding rest to the last scene, so the scenes sum to the total exactly.
  const rounded = raw.map((r) => Math.round(r * 10) / 10);
  const rest = Math.round((total - rounded.reduce((a, b) => a + b, 0)) * 10) / 10;
  rounded[rounded.length - 1] = Math.round((rounded.at(-1)! + rest) * 10) / 10;
  return scenes.map((s, i) => ({ ...s, seconds: rounded[i]! }));
}

/** Parses client-edited script text; 422 naming `text` when it cannot be a script. */
export function parseScript(text: string, totalSeconds: number): Scene[] {
  const blocks: string[][] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.some((l) => l.trim())) blocks.push(current);
    current = [];
  };
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    if (!line) flush();
    else if (HEADER.test(line)) flush();
    else current.push(line);
  }
  flush();
  if (!blocks.length) throw new InvalidParams('text', 'must contain at least one scene');
  if (blocks.length > SCRIPT_LIMITS.scenes) throw new InvalidParams('text', `must have at most ${SCRIPT_LIMITS.scenes} scenes`);
  const scenes = blocks.map((lines, i) => {
    let caption = '';
    let visual = '';
    let image = '';
    const voice: string[] = [];
    for (const line of lines) {
      const m = LABEL.exec(line);
      const label = m?.[1]?.toLowerCase();
      if (label === 'caption') caption = m![2]!.trim();
      else if (label === 'visual') visual = m![2]!.trim();
      else if (label === 'image') image = m![2]!.trim();
      else voice.push(label ? m![2]!.trim() : line);
    }
    const voiceover = voice.join(' ').replace(/\s+/g, ' ').trim();
    caption ||= shorten(voiceover, 60);
    if (!caption) throw new InvalidParams('text', `scene ${i + 1} has neither a caption nor a voice`);
    if (caption.length > SCRIPT_LIMITS.caption)
      throw new InvalidParams('text', `the caption of scene ${i + 1} is longer than ${SCRIPT_LIMITS.caption} characters`);
    if (voiceover.length > SCRIPT_LIMITS.voice) throw new InvalidParams('text', `the voice of scene ${i + 1} is longer than ${SCRIPT_LIMITS.voice} characters`);
    if (image && !ASSET_ID_RE.test(image)) throw new InvalidParams('text', `the Image of scene ${i + 1} must be an asset id (ast_...)`);
    return { caption, voiceover, visual: visual || caption, ...(image ? { image } : {}) };
  });
  return allotSeconds(scenes, totalSeconds);
}

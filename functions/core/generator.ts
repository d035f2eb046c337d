/**
 * The generator port: planner (prompt -> parameters), writer (parameters -> script and posting pack) and renderer
 * (script -> mp4 and cover). The implementations live in functions/generator: embedded ones that need no network, and
 * an OpenAI-compatible adapter for the planner and the writer.
 */
import type { AssetContentType } from '../contract/assets.ts';
import type { OrderParams } from '../contract/orders.ts';

export interface Scene {
  /** On-screen text. */
  caption: string;
  /** What the voice says during the scene. */
  voiceover: string;
  /** A hint for the scene's picture, with the caption's words. */
  visual: string;
  /** The scene's picture is this asset of the order (core/assets.ts) instead of a chosen one: a script's `Image:` line. */
  image?: string;
  seconds: number;
}

/** Posting pack: the JSON file published beside the video, and `metadata` of a done order. */
export interface PostingPack {
  title: string;
  description: string;
  /** Each starting with '#'. */
  hashtags: string[];
}

export interface Script {
  language: 'ru' | 'en';
  scenes: Scene[];
  pack: PostingPack;
}

/** The order a piece of work is for: for logs, and for fault injection's per-order choice (GENERATOR_FAIL). */
export interface ForOrder {
  orderId?: string;
}

export interface WriteRequest extends ForOrder {
  params: OrderParams;
  /** On regen: the client's note and the script it is about. */
  regen?: { note: string; previous: Script };
}

export interface RenderRequest extends ForOrder {
  script: Script;
  params: OrderParams;
  /**
   * The order's assets, by asset id, as local files of its copies with their checked type: the placement picture
   * (`params.placement.image`), the logo (`params.logo`) and scene pictures (`Scene.image`) are drawn from these only.
   */
  images?: Readonly<Record<string, { path: string; contentType: AssetContentType }>>;
  /** Trial videos carry the forced watermark `<service address> (AI)` on every frame. */
  watermark?: string;
  /** Where the mp4 and the cover go. */
  outDir: string;
  onProgress?: (fraction: number, stage: string) => void;
}

export interface RenderResult {
  video: string;
  cover: string;
  seconds: number;
  /** The picture each scene got, by name, where the renderer chooses pictures. */
  pictures?: string[];
  /** When each stage ran, in seconds from the render's start (stages overlap), where the renderer times them. */
  stages?: StageTime[];
}

export interface StageTime {
  stage: string;
  start: number;
  end: number;
}

export interface Planner {
  plan(prompt: string, job?: ForOrder): Promise<OrderParams>;
}
export interface Writer {
  write(req: WriteRequest): Promise<Script>;
}
export interface Renderer {
  render(req: RenderRequest): Promise<RenderResult>;
}

export interface Generator {
  planner: Planner;
  writer: Writer;
  renderer: Renderer;
}

/**
 * The paid extras the configured generator delivers, beyond what every order gets. An order asking for one it does
 * not deliver is refused before any charge: customers pay only for what they get.
 */
export interface Deliverable {
  /** Pictures made by an image model for each scene. */
  ai_visual: boolean;
  /** The customer's own voice (a cloned voice at a speech provider). */
  voice_clone: boolean;
}

/**
 * An AI provider's API key kept in a secret store (Secrets Manager on AWS): read when a call needs it and kept; read
 * again when the provider refuses it (the key was rotated). Its reads fail as GeneratorBusy or GeneratorFailed.
 */
export interface KeySource {
  key(): Promise<string>;
  /** Reads the key again unless it was read a moment ago; true when the next key() may differ. */
  renew(): boolean;
}
/** Opens the key kept in the named secret. */
export type SecretKeys = (secretId: string) => KeySource;

/**
 * A failure that may pass (a busy or slow engine, a malformed answer): the workflow retries it. Its `name` is what
 * Step Functions' Retry matches.
 */
export class GeneratorBusy extends Error {
  override readonly name = 'GeneratorBusy';
}

/** A lasting failure (an impossible script, a refused request): the order ends in error and is refunded. */
export class GeneratorFailed extends Error {
  override readonly name = 'GeneratorFailed';
}

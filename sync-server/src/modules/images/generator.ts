import { createHash } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';

/**
 * Image generators behind one interface: the default {@link LocalImageGenerator} renders real PNGs on
 * this machine, deterministically; {@link OpenAiImageGenerator} speaks an OpenAI-compatible images API when
 * `IMAGE_API_URL` is configured. The route never cares which one it has.
 */

/** The four styles an image generation request may ask for (docs/images.md "Request"). */
export const IMAGE_STYLES = ['photorealistic', 'illustration', 'cinematic', '3d'] as const;
export type ImageStyle = (typeof IMAGE_STYLES)[number];

/** The three aspects an image generation request may ask for (docs/images.md "Request"). */
export const IMAGE_ASPECTS = ['1:1', '16:9', '9:16'] as const;
export type ImageAspect = (typeof IMAGE_ASPECTS)[number];

/**
 * Pixel size of each aspect. 16:9 is 1792×1008 (exactly 16:9, both sides multiples of 16), not the
 * 1792×1024 some providers return: provider output is resized to these sizes.
 */
export const ASPECT_SIZES: Readonly<Record<ImageAspect, { width: number; height: number }>> = {
  '1:1': { width: 1024, height: 1024 },
  '16:9': { width: 1792, height: 1008 },
  '9:16': { width: 1008, height: 1792 },
};

/** One image to make: `index` is its position (0-based) within a request for `n` images. */
export interface GenerateInput {
  prompt: string;
  style: ImageStyle;
  aspect: ImageAspect;
  index: number;
}

/** A generated picture: PNG bytes whose pixel size is exactly `width` × `height`. */
export interface GeneratedImage {
  png: Buffer;
  width: number;
  height: number;
}

/** Anything that turns a prompt into a PNG. Failures of a remote provider are thrown as {@link ProviderError}. */
export interface ImageGenerator {
  /** Short name for logs and docs (`local`, `openai`). */
  readonly name: string;
  generate(input: GenerateInput): Promise<GeneratedImage>;
}

/**
 * The image provider failed: unreachable, timed out, answered non-2xx, or returned something that is not an image.
 * The route maps it to a 502 problem and charges nothing. `status` is the provider's HTTP status when there was one.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Deterministic randomness

/**
 * SHA-256 of `prompt|style|aspect|index` — the seed of the local generator, so the same four values always give the
 * same bytes and any change gives a different picture. Returned as 32 raw bytes.
 */
export function imageSeed(input: GenerateInput): Buffer {
  return createHash('sha256').update(`${input.prompt}|${input.style}|${input.aspect}|${input.index}`, 'utf8').digest();
}

/** sfc32 — a small, fast, well-distributed PRNG seeded with 128 bits; returns floats in [0, 1). */
function sfc32(seed: Buffer): () => number {
  let a = seed.readUInt32LE(0);
  let b = seed.readUInt32LE(4);
  let c = seed.readUInt32LE(8);
  let d = seed.readUInt32LE(12);
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next(); // warm-up: the first outputs of sfc32 correlate with the seed
  return next;
}

class Rng {
  constructor(private readonly next: () => number) {}
  float(min = 0, max = 1): number {
    return min + (max - min) * this.next();
  }
  int(min: number, maxInclusive: number): number {
    return Math.floor(this.float(min, maxInclusive + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Prompt → palette

/** Hues (degrees) for words that name or strongly suggest a colour; other words hash to a hue. */
const WORD_HUES: Readonly<Record<string, number>> = {
  red: 0,
  cherry: 350,
  strawberry: 355,
  tomato: 8,
  rose: 340,
  pink: 330,
  magenta: 300,
  purple: 280,
  violet: 270,
  lavender: 265,
  plum: 290,
  grape: 285,
  blue: 220,
  ocean: 205,
  sea: 200,
  sky: 205,
  water: 195,
  ice: 190,
  navy: 225,
  cyan: 185,
  teal: 175,
  mint: 155,
  green: 120,
  leaf: 110,
  forest: 125,
  grass: 100,
  lime: 85,
  matcha: 95,
  olive: 70,
  tea: 80,
  yellow: 52,
  lemon: 55,
  banana: 50,
  gold: 45,
  sun: 45,
  sunny: 48,
  honey: 40,
  orange: 28,
  pumpkin: 25,
  peach: 22,
  sunset: 18,
  fire: 12,
  coffee: 28,
  espresso: 22,
  latte: 32,
  mocha: 25,
  chocolate: 20,
  cocoa: 22,
  brown: 25,
  bread: 35,
  croissant: 38,
  caramel: 32,
  wood: 30,
  sand: 40,
  beach: 42,
  salon: 320,
  hair: 30,
  night: 235,
  moon: 230,
  snow: 200,
  winter: 200,
  autumn: 25,
  spring: 110,
  summer: 45,
};

/** Words that pull the palette lightness up or down, and that turn saturation down. */
const LIGHT_WORDS = new Set(['white', 'bright', 'light', 'snow', 'milk', 'cream', 'vanilla', 'sunny', 'day', 'pastel']);
const DARK_WORDS = new Set(['black', 'dark', 'night', 'espresso', 'shadow', 'midnight', 'noir', 'deep']);
const MUTED_WORDS = new Set(['grey', 'gray', 'silver', 'steel', 'concrete', 'stone', 'muted', 'vintage', 'old']);

interface PromptTraits {
  /** Hues from the prompt, most important first; never empty. */
  hues: number[];
  /** −1 (darker) … +1 (lighter). */
  lightness: number;
  /** 0.4 (muted) … 1. */
  saturation: number;
  /** Number of words, used to decide how busy the composition is. */
  wordCount: number;
}

function promptTraits(prompt: string): PromptTraits {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const hues: number[] = [];
  let light = 0;
  let muted = 0;
  for (const word of words) {
    const named = WORD_HUES[word] ?? WORD_HUES[word.replace(/(es|s)$/, '')];
    if (named !== undefined) hues.unshift(named);
    else if (word.length > 2) hues.push(createHash('sha256').update(word).digest().readUInt16LE(0) % 360);
    if (LIGHT_WORDS.has(word)) light += 1;
    if (DARK_WORDS.has(word)) light -= 1;
    if (MUTED_WORDS.has(word)) muted += 1;
  }
  if (hues.length === 0) hues.push(createHash('sha256').update(prompt).digest().readUInt16LE(0) % 360);
  return {
    hues: hues.slice(0, 6),
    lightness: Math.max(-1, Math.min(1, light / 2)),
    saturation: Math.max(0.4, 1 - muted * 0.3),
    wordCount: words.length,
  };
}

/** `hsl()` colour string with clamped components (s and l in percent). */
function hsl(h: number, s: number, l: number): string {
  const hue = ((h % 360) + 360) % 360;
  const clamp = (v: number) => Math.max(0, Math.min(100, v));
  return `hsl(${hue.toFixed(1)},${clamp(s).toFixed(1)}%,${clamp(l).toFixed(1)}%)`;
}

function hueAt(traits: PromptTraits, i: number, rng: Rng, jitter: number): number {
  return (traits.hues[i % traits.hues.length] as number) + rng.float(-jitter, jitter);
}

// ---------------------------------------------------------------------------------------------------------------
// Styles: each returns the inner SVG markup for a width × height canvas

interface Canvas {
  w: number;
  h: number;
  /** The shorter side, used to scale shapes so each aspect looks composed, not stretched. */
  s: number;
}

/**
 * What a style draws: `main` is SVG markup at full resolution; an optional `backdrop` is drawn underneath at
 * 1/{@link BACKDROP_SCALE} resolution and upscaled (smooth out-of-focus background, far cheaper than SVG blur
 * filters); an optional `blur` (Gaussian sigma in pixels) softens the final picture.
 */
interface Scene {
  backdrop?: string;
  main: string;
  blur?: number;
}

type StyleRenderer = (c: Canvas, rng: Rng, traits: PromptTraits) => Scene | string;

/**
 * Soft, natural scene: a sky gradient, a hazy sun, hills and bokeh in a backdrop that is drawn at low resolution and
 * upscaled (a cheap, smooth depth-of-field blur), then a softly lit subject on top and a light overall softening.
 */
const photorealistic: StyleRenderer = ({ w, h, s }, rng, t) => {
  const sat = 28 * t.saturation;
  const baseL = 62 + t.lightness * 14;
  const skyHue = hueAt(t, 1, rng, 10);
  const subjectHue = hueAt(t, 0, rng, 6);
  const groundHue = hueAt(t, 2, rng, 15);
  const horizon = h * rng.float(0.55, 0.68);
  const sunX = w * rng.float(0.15, 0.85);
  const sunY = horizon * rng.float(0.25, 0.6);
  const back: string[] = [];
  back.push(`<defs>
<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
<stop offset="0" stop-color="${hsl(skyHue, sat + 10, baseL + 12)}"/>
<stop offset="0.7" stop-color="${hsl(skyHue + 20, sat, baseL + 22)}"/>
<stop offset="1" stop-color="${hsl(skyHue + 35, sat - 5, baseL + 26)}"/></linearGradient>
<radialGradient id="sun"><stop offset="0" stop-color="hsl(45,90%,97%)" stop-opacity="0.95"/>
<stop offset="1" stop-color="hsl(40,80%,85%)" stop-opacity="0"/></radialGradient>
<radialGradient id="bokeh"><stop offset="0" stop-color="hsl(45,80%,96%)" stop-opacity="0.5"/>
<stop offset="1" stop-color="hsl(45,80%,96%)" stop-opacity="0"/></radialGradient>
<radialGradient id="shade"><stop offset="0" stop-color="black" stop-opacity="0.45"/>
<stop offset="1" stop-color="black" stop-opacity="0"/></radialGradient>
<linearGradient id="ground" x1="0" y1="0" x2="0" y2="1">
<stop offset="0" stop-color="${hsl(groundHue, sat, baseL - 8)}"/>
<stop offset="1" stop-color="${hsl(groundHue, sat - 8, baseL - 30)}"/></linearGradient>
</defs>`);
  back.push(`<rect width="${w}" height="${h}" fill="url(#sky)"/>`);
  back.push(`<circle cx="${sunX}" cy="${sunY}" r="${s * 0.35}" fill="url(#sun)"/>`);
  for (let i = 0; i < 5 + (t.wordCount % 4); i++) {
    back.push(`<circle cx="${w * rng.float(0, 1)}" cy="${horizon * rng.float(0.2, 0.95)}" r="${s * rng.float(0.03, 0.08)}" fill="url(#bokeh)"/>`);
  }
  for (let layer = 0; layer < 3; layer++) {
    const y0 = horizon - s * (0.12 - layer * 0.04);
    let d = `M0 ${h} L0 ${y0.toFixed(1)}`;
    const steps = 8;
    for (let i = 1; i <= steps; i++) {
      const x = (w * i) / steps;
      const y = y0 + rng.float(-s * 0.06, s * 0.04);
      d += ` Q${(x - w / steps / 2).toFixed(1)} ${(y - s * 0.05).toFixed(1)} ${x.toFixed(1)} ${y.toFixed(1)}`;
    }
    d += ` L${w} ${h} Z`;
    back.push(`<path d="${d}" fill="${hsl(hueAt(t, 2 + layer, rng, 12), sat - 4, baseL - 5 - layer * 9)}" opacity="0.9"/>`);
  }
  back.push(`<rect y="${horizon}" width="${w}" height="${h - horizon}" fill="url(#ground)"/>`);
  // The subject: a softly lit rounded object resting on the ground; its contact shadow belongs to the backdrop.
  const cx = w * rng.float(0.35, 0.65);
  const r = s * rng.float(0.16, 0.24);
  const ry = r * rng.float(0.8, 1.05);
  const cy = horizon + (h - horizon) * 0.35 - r * 0.6;
  back.push(`<ellipse cx="${cx + r * 0.15}" cy="${cy + ry * 0.95}" rx="${r * 1.5}" ry="${r * 0.3}" fill="url(#shade)"/>`);
  const main = `<defs><radialGradient id="subject" cx="0.35" cy="0.3" r="0.8">
<stop offset="0" stop-color="${hsl(subjectHue, sat + 25, baseL + 15)}"/>
<stop offset="1" stop-color="${hsl(subjectHue, sat + 15, baseL - 30)}"/></radialGradient>
<radialGradient id="spec"><stop offset="0" stop-color="white" stop-opacity="0.7"/><stop offset="1" stop-color="white" stop-opacity="0"/></radialGradient></defs>
<ellipse cx="${cx}" cy="${cy}" rx="${r}" ry="${ry}" fill="url(#subject)"/>
<ellipse cx="${cx - r * 0.35}" cy="${cy - ry * 0.4}" rx="${r * 0.3}" ry="${ry * 0.2}" fill="url(#spec)"/>
<rect width="${w}" height="${h}" fill="hsl(40,60%,92%)" opacity="0.12"/>`;
  return { backdrop: back.join('\n'), main, blur: s * 0.0015 };
};

/** Flat, saturated shapes with thick dark outlines on a single-colour background; four or five colours in all. */
const illustration: StyleRenderer = ({ w, h, s }, rng, t) => {
  const l = 55 + t.lightness * 8;
  const palette = [0, 1, 2, 3].map((i) => hsl(hueAt(t, i, rng, 25) + i * 67, 88 * t.saturation + 10, l));
  const background = hsl(hueAt(t, 0, rng, 10) + 180, 75 * t.saturation, 86 + t.lightness * 4);
  const outline = `stroke="#1a1423" stroke-width="${(s * 0.012).toFixed(1)}" stroke-linejoin="round"`;
  const parts: string[] = [`<rect width="${w}" height="${h}" fill="${background}"/>`];
  // A flat ground band and a sun disc, then a handful of bold shapes.
  parts.push(`<rect x="-20" y="${h * 0.72}" width="${w + 40}" height="${h * 0.3}" fill="${palette[3]}" ${outline}/>`);
  parts.push(`<circle cx="${w * rng.float(0.15, 0.85)}" cy="${h * rng.float(0.12, 0.3)}" r="${s * 0.1}" fill="${palette[1]}" ${outline}/>`);
  const shapes = 4 + Math.min(4, Math.floor(t.wordCount / 2)) + rng.int(0, 2);
  for (let i = 0; i < shapes; i++) {
    const fill = palette[i % 3] as string;
    const x = w * rng.float(0.1, 0.9);
    const y = h * rng.float(0.35, 0.8);
    const size = s * rng.float(0.08, 0.18);
    switch (rng.int(0, 2)) {
      case 0:
        parts.push(`<circle cx="${x}" cy="${y}" r="${size}" fill="${fill}" ${outline}/>`);
        break;
      case 1:
        parts.push(
          `<rect x="${x - size}" y="${y - size}" width="${size * 2}" height="${size * 2}" rx="${size * 0.25}" fill="${fill}" ${outline} transform="rotate(${rng.int(-20, 20)} ${x} ${y})"/>`,
        );
        break;
      default:
        parts.push(
          `<polygon points="${x},${y - size * 1.2} ${x + size * 1.1},${y + size * 0.8} ${x - size * 1.1},${y + size * 0.8}" fill="${fill}" ${outline}/>`,
        );
    }
  }
  return parts.join('\n');
};

/** Dark, high-contrast teal/orange grade: a warm light against teal shadows, silhouettes, vignette, letterbox bars. */
const cinematic: StyleRenderer = ({ w, h, s }, rng, t) => {
  const lightX = w * rng.float(0.25, 0.75);
  const lightY = h * rng.float(0.3, 0.55);
  const teal = 188 + (hueAt(t, 0, rng, 0) % 20) - 10;
  const orange = 24 + (hueAt(t, 1, rng, 0) % 16) - 8;
  const parts: string[] = [];
  parts.push(`<defs>
<linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
<stop offset="0" stop-color="${hsl(teal, 60, 6)}"/><stop offset="0.6" stop-color="${hsl(teal, 55, 14)}"/>
<stop offset="1" stop-color="${hsl(teal + 10, 50, 4)}"/></linearGradient>
<radialGradient id="glow"><stop offset="0" stop-color="${hsl(orange + 12, 100, 88)}"/>
<stop offset="0.25" stop-color="${hsl(orange, 100, 55)}" stop-opacity="0.9"/>
<stop offset="1" stop-color="${hsl(orange, 100, 40)}" stop-opacity="0"/></radialGradient>
<radialGradient id="vignette" cx="0.5" cy="0.5" r="0.75">
<stop offset="0.45" stop-color="black" stop-opacity="0"/><stop offset="1" stop-color="black" stop-opacity="0.92"/></radialGradient>
</defs>`);
  parts.push(`<rect width="${w}" height="${h}" fill="url(#bg)"/>`);
  parts.push(`<circle cx="${lightX}" cy="${lightY}" r="${s * rng.float(0.35, 0.5)}" fill="url(#glow)"/>`);
  // Silhouettes: a skyline or figures cut out against the glow, in near-black teal.
  const ground = h * rng.float(0.66, 0.74);
  let d = `M0 ${h} L0 ${ground}`;
  let x = 0;
  while (x < w) {
    const bw = s * rng.float(0.05, 0.16);
    const top = ground - s * rng.float(0.02, 0.3);
    d += ` L${x.toFixed(1)} ${top.toFixed(1)} L${(x + bw).toFixed(1)} ${top.toFixed(1)}`;
    x += bw;
  }
  d += ` L${w} ${ground} L${w} ${h} Z`;
  parts.push(`<path d="${d}" fill="${hsl(teal, 70, 3)}"/>`);
  // Rim light streaks in orange.
  for (let i = 0; i < 3 + (t.wordCount % 3); i++) {
    const y = h * rng.float(0.2, 0.65);
    parts.push(
      `<rect x="0" y="${y}" width="${w}" height="${s * 0.004}" fill="${hsl(orange, 100, 60)}" opacity="${rng.float(0.15, 0.4).toFixed(2)}"/>`,
    );
  }
  parts.push(`<rect width="${w}" height="${h}" fill="url(#vignette)"/>`);
  // Letterbox to ≈2.39:1 inside a landscape frame; a fixed 10 % bar top and bottom otherwise.
  const bar = w > h ? Math.max(0, (h - w / 2.39) / 2) : h * 0.1;
  parts.push(`<rect width="${w}" height="${bar.toFixed(1)}" fill="black"/>`);
  parts.push(`<rect y="${(h - bar).toFixed(1)}" width="${w}" height="${bar.toFixed(1)}" fill="black"/>`);
  return parts.join('\n');
};

/** Rendered primitives: shaded spheres and isometric cubes with gradients and soft shadows on a studio floor. */
const threeD: StyleRenderer = ({ w, h, s }, rng, t) => {
  const floorY = h * 0.62;
  const parts: string[] = [];
  const defs: string[] = [
    `<linearGradient id="wall" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(220,12%,${78 + t.lightness * 8}%)"/><stop offset="1" stop-color="hsl(220,10%,${66 + t.lightness * 8}%)"/></linearGradient>`,
    `<linearGradient id="floor" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(220,8%,${58 + t.lightness * 8}%)"/><stop offset="1" stop-color="hsl(220,10%,${84 + t.lightness * 6}%)"/></linearGradient>`,
    `<radialGradient id="shadow"><stop offset="0" stop-color="black" stop-opacity="0.55"/><stop offset="0.6" stop-color="black" stop-opacity="0.25"/><stop offset="1" stop-color="black" stop-opacity="0"/></radialGradient>`,
  ];
  parts.push(`<rect width="${w}" height="${floorY}" fill="url(#wall)"/>`);
  parts.push(`<rect y="${floorY}" width="${w}" height="${h - floorY}" fill="url(#floor)"/>`);
  const count = 3 + Math.min(3, Math.floor(t.wordCount / 3)) + rng.int(0, 1);
  const objects = Array.from({ length: count }, (_, i) => ({
    i,
    x: w * rng.float(0.12, 0.88),
    y: floorY + (h - floorY) * rng.float(0.1, 0.75),
    size: s * rng.float(0.07, 0.15),
    hue: hueAt(t, i, rng, 15),
    kind: rng.int(0, 1),
  })).sort((a, b) => a.y - b.y); // far objects first
  for (const o of objects) {
    const sat = 70 * t.saturation;
    parts.push(`<ellipse cx="${o.x + o.size * 0.35}" cy="${o.y}" rx="${o.size * 1.4}" ry="${o.size * 0.38}" fill="url(#shadow)"/>`);
    if (o.kind === 0) {
      defs.push(
        `<radialGradient id="sph${o.i}" cx="0.35" cy="0.3" r="0.75"><stop offset="0" stop-color="white"/><stop offset="0.15" stop-color="${hsl(o.hue, sat, 70)}"/><stop offset="0.7" stop-color="${hsl(o.hue, sat, 38)}"/><stop offset="1" stop-color="${hsl(o.hue, sat, 14)}"/></radialGradient>`,
      );
      parts.push(`<circle cx="${o.x}" cy="${o.y - o.size}" r="${o.size}" fill="url(#sph${o.i})"/>`);
    } else {
      const a = o.size; // half edge; isometric cube resting on (x, y)
      const top = `${o.x},${o.y - 2 * a - a * 0.5} ${o.x + a},${o.y - 2 * a} ${o.x},${o.y - 2 * a + a * 0.5} ${o.x - a},${o.y - 2 * a}`;
      const left = `${o.x - a},${o.y - 2 * a} ${o.x},${o.y - 2 * a + a * 0.5} ${o.x},${o.y + a * 0.5} ${o.x - a},${o.y}`;
      const right = `${o.x + a},${o.y - 2 * a} ${o.x},${o.y - 2 * a + a * 0.5} ${o.x},${o.y + a * 0.5} ${o.x + a},${o.y}`;
      defs.push(
        `<linearGradient id="cl${o.i}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${hsl(o.hue, sat, 52)}"/><stop offset="1" stop-color="${hsl(o.hue, sat, 36)}"/></linearGradient>`,
      );
      defs.push(
        `<linearGradient id="cr${o.i}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${hsl(o.hue, sat, 30)}"/><stop offset="1" stop-color="${hsl(o.hue, sat, 16)}"/></linearGradient>`,
      );
      parts.push(`<polygon points="${left}" fill="url(#cl${o.i})"/>`);
      parts.push(`<polygon points="${right}" fill="url(#cr${o.i})"/>`);
      parts.push(`<polygon points="${top}" fill="${hsl(o.hue, sat - 10, 72)}"/>`);
    }
  }
  return `<defs>${defs.join('')}</defs>\n${parts.join('\n')}`;
};

const STYLE_RENDERERS: Readonly<Record<ImageStyle, StyleRenderer>> = {
  photorealistic,
  illustration,
  cinematic,
  '3d': threeD,
};

/** The backdrop of a {@link Scene} is drawn at this fraction of the final size, then upscaled. */
const BACKDROP_SCALE = 8;

function svgDocument(w: number, h: number, body: string, renderWidth = w, renderHeight = h): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${renderWidth}" height="${renderHeight}" viewBox="0 0 ${w} ${h}">\n${body}\n</svg>`;
}

function scene(input: GenerateInput): Scene {
  const { width: w, height: h } = ASPECT_SIZES[input.aspect];
  const rng = new Rng(sfc32(imageSeed(input)));
  const drawn = STYLE_RENDERERS[input.style]({ w, h, s: Math.min(w, h) }, rng, promptTraits(input.prompt));
  return typeof drawn === 'string' ? { main: drawn } : drawn;
}

/**
 * The SVG document(s) the local generator rasterises for `input` — exposed for tests and debugging. Pure: same
 * input, same strings. `backdrop`, when present, is the low-resolution layer drawn under `main`.
 */
export function renderSvg(input: GenerateInput): { main: string; backdrop?: string; blur?: number } {
  const { width: w, height: h } = ASPECT_SIZES[input.aspect];
  const drawn = scene(input);
  return {
    main: svgDocument(w, h, drawn.main),
    ...(drawn.backdrop === undefined
      ? {}
      : { backdrop: svgDocument(w, h, drawn.backdrop, Math.ceil(w / BACKDROP_SCALE), Math.ceil(h / BACKDROP_SCALE)) }),
    ...(drawn.blur === undefined ? {} : { blur: drawn.blur }),
  };
}

/**
 * The default generator: builds an SVG scene from a SHA-256 seed of (prompt, style, aspect, index) and rasterises it
 * with sharp (librsvg) to a PNG of exactly the aspect's size. Deterministic: the same input gives identical bytes on
 * the same sharp/libvips build. Needs no network and no credentials. Typical cost on one core: 15–150 ms per image.
 */
export class LocalImageGenerator implements ImageGenerator {
  readonly name = 'local';

  async generate(input: GenerateInput): Promise<GeneratedImage> {
    const { width, height } = ASPECT_SIZES[input.aspect];
    const svg = renderSvg(input);
    let image: Sharp;
    if (svg.backdrop === undefined) {
      image = sharp(Buffer.from(svg.main));
    } else {
      const backdrop = await sharp(Buffer.from(svg.backdrop))
        .resize(width, height, { fit: 'fill', kernel: 'cubic' })
        .composite([{ input: Buffer.from(svg.main) }])
        .raw()
        .toBuffer({ resolveWithObject: true });
      image = sharp(backdrop.data, { raw: backdrop.info });
    }
    if (svg.blur !== undefined && svg.blur >= 0.3) image = image.blur(svg.blur);
    const png = await image.removeAlpha().png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
    return { png, width, height };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI-compatible provider

/** Words appended to the prompt for each style when a remote model draws the picture. */
const STYLE_PROMPTS: Readonly<Record<ImageStyle, string>> = {
  photorealistic: 'photorealistic photograph, natural light, realistic detail',
  illustration: 'flat vector illustration, bold outlines, few saturated colours',
  cinematic: 'cinematic film still, dramatic lighting, teal and orange grade, anamorphic widescreen',
  '3d': '3D render, soft studio lighting, glossy materials, soft shadows',
};

/** The size requested from the provider per aspect (the sizes OpenAI's images API accepts); resized afterwards. */
const PROVIDER_SIZES: Readonly<Record<ImageAspect, string>> = {
  '1:1': '1024x1024',
  '16:9': '1792x1024',
  '9:16': '1024x1792',
};

export interface OpenAiImageGeneratorOptions {
  /** Base URL of the API, e.g. `https://api.example.com` or `http://127.0.0.1:9000` (a trailing `/v1` is accepted). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Model name sent in the body; default `dall-e-3`. */
  model?: string;
  /** Per-request timeout in milliseconds; default 60 000. */
  timeoutMs?: number;
  /** Injected for tests; default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * Adapter for an OpenAI-compatible images API: `POST {baseUrl}/v1/images/generations` with
 * `{ model, prompt, n: 1, size, response_format: 'b64_json' }` and `Authorization: Bearer <apiKey>`; reads
 * `data[0].b64_json` (or downloads `data[0].url`), checks that it decodes as an image and resizes it (cover, centre
 * crop) to the exact aspect size as PNG. Every failure — network, timeout, non-2xx, malformed body, undecodable
 * image — is thrown as {@link ProviderError}. One HTTP call per image, so `n` images are `n` calls.
 */
export class OpenAiImageGenerator implements ImageGenerator {
  readonly name = 'openai';
  private readonly endpoint: string;
  private readonly model: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: OpenAiImageGeneratorOptions) {
    const base = options.baseUrl.replace(/\/+$/, '');
    this.endpoint = `${base.endsWith('/v1') ? base : `${base}/v1`}/images/generations`;
    this.model = options.model ?? 'dall-e-3';
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  async generate(input: GenerateInput): Promise<GeneratedImage> {
    const { width, height } = ASPECT_SIZES[input.aspect];
    const body = {
      model: this.model,
      prompt: `${input.prompt}\n\nStyle: ${STYLE_PROMPTS[input.style]}.`,
      n: 1,
      size: PROVIDER_SIZES[input.aspect],
      response_format: 'b64_json',
    };
    let response: Response;
    try {
      response = await this.fetchImpl(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.apiKey}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ProviderError(`image provider unreachable: ${(error as Error).message}`, undefined, { cause: error });
    }
    if (!response.ok) {
      const detail = await response.text().catch(() => '');
      throw new ProviderError(`image provider answered ${response.status}: ${detail.slice(0, 300)}`, response.status);
    }
    let source: Buffer;
    try {
      const json = (await response.json()) as { data?: Array<{ b64_json?: unknown; url?: unknown }> };
      const first = json.data?.[0];
      if (typeof first?.b64_json === 'string') {
        source = Buffer.from(first.b64_json, 'base64');
      } else if (typeof first?.url === 'string') {
        const download = await this.fetchImpl(first.url, { signal: AbortSignal.timeout(this.timeoutMs) });
        if (!download.ok) throw new ProviderError(`image download answered ${download.status}`, download.status);
        source = Buffer.from(await download.arrayBuffer());
      } else {
        throw new ProviderError('image provider returned no image (data[0].b64_json missing)');
      }
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      throw new ProviderError(`image provider returned a malformed body: ${(error as Error).message}`, undefined, {
        cause: error,
      });
    }
    try {
      const png = await sharp(source).resize(width, height, { fit: 'cover', position: 'centre' }).png().toBuffer();
      return { png, width, height };
    } catch (error) {
      throw new ProviderError(`image provider returned bytes that are not an image: ${(error as Error).message}`, undefined, {
        cause: error,
      });
    }
  }
}

/** Configuration read by {@link createImageGenerator}; from the environment variables of the same names. */
export interface ImageGeneratorConfig {
  IMAGE_API_URL?: string | undefined;
  IMAGE_API_KEY?: string | undefined;
  IMAGE_API_MODEL?: string | undefined;
}

/**
 * The generator for a configuration: {@link OpenAiImageGenerator} when `IMAGE_API_URL` is set (with
 * `IMAGE_API_KEY`, and `IMAGE_API_MODEL` if given), otherwise {@link LocalImageGenerator}.
 */
export function createImageGenerator(config: ImageGeneratorConfig = process.env): ImageGenerator {
  if (config.IMAGE_API_URL) {
    return new OpenAiImageGenerator({
      baseUrl: config.IMAGE_API_URL,
      apiKey: config.IMAGE_API_KEY ?? '',
      ...(config.IMAGE_API_MODEL ? { model: config.IMAGE_API_MODEL } : {}),
    });
  }
  return new LocalImageGenerator();
}

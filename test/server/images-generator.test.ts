import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASPECT_SIZES,
  IMAGE_ASPECTS,
  IMAGE_STYLES,
  LocalImageGenerator,
  OpenAiImageGenerator,
  ProviderError,
  createImageGenerator,
  type ImageStyle,
} from '../../sync-server/src/modules/images/generator.ts';
import { FsImageStore, MemoryImageStore } from '../../sync-server/src/modules/images/store.ts';

const local = new LocalImageGenerator();

/** Statistics of a picture: sharp's own (greyscale mean, stdev, entropy, sharpness) plus saturation and palette size. */
async function imageFeatures(png: Buffer) {
  const grey = await sharp(png).greyscale().stats();
  const { data, info } = await sharp(png).resize(256, 256, { fit: 'fill', kernel: 'nearest' }).raw().toBuffer({ resolveWithObject: true });
  let saturation = 0;
  const colours = new Map<number, number>();
  for (let i = 0; i < data.length; i += info.channels) {
    const r = data[i] as number;
    const g = data[i + 1] as number;
    const b = data[i + 2] as number;
    const max = Math.max(r, g, b);
    saturation += max === 0 ? 0 : (max - Math.min(r, g, b)) / max;
    const bucket = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
    colours.set(bucket, (colours.get(bucket) ?? 0) + 1);
  }
  const pixels = data.length / info.channels;
  const channel = grey.channels[0]!;
  return {
    luminance: channel.mean,
    stdev: channel.stdev,
    entropy: grey.entropy,
    sharpness: grey.sharpness,
    saturation: saturation / pixels,
    /** Share of pixels covered by the six most common (quantised) colours: ≈1 for flat artwork. */
    topSixShare:
      [...colours.values()]
        .sort((a, b) => b - a)
        .slice(0, 6)
        .reduce((sum, count) => sum + count, 0) / pixels,
  };
}

/** Tells the style from statistics alone; the local generator's styles must be told apart by it. */
function classify(f: Awaited<ReturnType<typeof imageFeatures>>): ImageStyle {
  if (f.luminance < 80) return 'cinematic'; // dark, graded, letterboxed
  if (f.entropy < 3.5 && f.topSixShare > 0.9) return 'illustration'; // few flat colours
  if (f.sharpness < 0.2) return 'photorealistic'; // smooth gradients, soft focus
  return '3d';
}

describe('LocalImageGenerator', () => {
  it('renders valid PNGs of the exact size for every style and aspect', async () => {
    for (const style of IMAGE_STYLES) {
      for (const aspect of IMAGE_ASPECTS) {
        const image = await local.generate({ prompt: 'Cold brew coffee', style, aspect, index: 0 });
        expect({ width: image.width, height: image.height }).toEqual(ASPECT_SIZES[aspect]);
        expect(image.png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
        const meta = await sharp(image.png).metadata();
        expect(meta.format).toBe('png');
        expect([meta.width, meta.height]).toEqual([image.width, image.height]);
        // Really decodes, pixel for pixel.
        const raw = await sharp(image.png).raw().toBuffer({ resolveWithObject: true });
        expect(raw.data.length).toBe(image.width * image.height * raw.info.channels);
      }
    }
    expect(ASPECT_SIZES).toEqual({
      '1:1': { width: 1024, height: 1024 },
      '16:9': { width: 1792, height: 1008 },
      '9:16': { width: 1008, height: 1792 },
    });
  });

  it('is deterministic per (prompt, style, aspect, index) and changes when any of them changes', async () => {
    const base = { prompt: 'Blueberry muffin', style: 'illustration', aspect: '1:1', index: 0 } as const;
    const first = await local.generate(base);
    const again = await new LocalImageGenerator().generate({ ...base });
    expect(again.png.equals(first.png)).toBe(true);
    const variants = await Promise.all([
      local.generate({ ...base, prompt: 'Blueberry muffins' }),
      local.generate({ ...base, style: '3d' }),
      local.generate({ ...base, aspect: '16:9' }),
      local.generate({ ...base, index: 1 }),
    ]);
    for (const variant of variants) expect(variant.png.equals(first.png)).toBe(false);
  });

  it('makes the four styles statistically distinct (a statistics-only classifier recognises each)', async () => {
    const prompts = ['Iced oat milk latte with caramel', 'Blue denim jacket', 'Haircut and blow-dry', 'Dark chocolate brownie'];
    const features: Record<ImageStyle, Array<Awaited<ReturnType<typeof imageFeatures>>>> = {
      photorealistic: [],
      illustration: [],
      cinematic: [],
      '3d': [],
    };
    for (const [i, prompt] of prompts.entries()) {
      const aspect = IMAGE_ASPECTS[i % IMAGE_ASPECTS.length]!;
      for (const style of IMAGE_STYLES) {
        const f = await imageFeatures((await local.generate({ prompt, style, aspect, index: i })).png);
        features[style].push(f);
        expect(classify(f), `${style} ${aspect} “${prompt}”: ${JSON.stringify(f)}`).toBe(style);
      }
    }
    const mean = (style: ImageStyle, key: keyof (typeof features)['3d'][number]) =>
      features[style].reduce((sum, f) => sum + f[key], 0) / features[style].length;
    // The qualities each style promises, on average.
    expect(mean('cinematic', 'luminance')).toBeLessThan(mean('photorealistic', 'luminance') - 60);
    expect(mean('illustration', 'saturation')).toBeGreaterThan(mean('photorealistic', 'saturation') + 0.15);
    expect(mean('illustration', 'saturation')).toBeGreaterThan(mean('3d', 'saturation') + 0.15);
    expect(mean('photorealistic', 'sharpness')).toBeLessThan(mean('3d', 'sharpness'));
    expect(mean('illustration', 'topSixShare')).toBeGreaterThan(0.95);
  });

  it('letterboxes cinematic pictures with black bars', async () => {
    for (const aspect of IMAGE_ASPECTS) {
      const { png, width, height } = await local.generate({ prompt: 'Night market', style: 'cinematic', aspect, index: 0 });
      for (const top of [0, height - 4]) {
        // Raw pixels, not .stats(): sharp computes statistics on the whole input, ignoring extract().
        const band = await sharp(png).extract({ left: 0, top, width, height: 4 }).raw().toBuffer();
        expect(Math.max(...band)).toBeLessThanOrEqual(2);
      }
    }
  });

  it('lets prompt words steer the palette', async () => {
    const hueOf = async (prompt: string) => {
      const stats = await sharp((await local.generate({ prompt, style: 'illustration', aspect: '1:1', index: 0 })).png).stats();
      return stats.channels.map((c) => c.mean);
    };
    const [red, blue] = await Promise.all([hueOf('red red red'), hueOf('blue blue blue')]);
    expect(red).not.toEqual(blue);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// A local server speaking the OpenAI images API

interface Recorded {
  url: string | undefined;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

type Behaviour = (req: Recorded, res: ServerResponse) => void | Promise<void>;

describe('OpenAiImageGenerator against a local OpenAI-compatible server', () => {
  let server: Server;
  let baseUrl: string;
  let behaviour: Behaviour = () => {};
  const requests: Recorded[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded: Recorded = {
          url: req.url,
          authorization: req.headers.authorization,
          body: chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {},
        };
        requests.push(recorded);
        void Promise.resolve(behaviour(recorded, res)).catch((error: unknown) => {
          res.statusCode = 599;
          res.end(String(error));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Answers like the real API: `{ created, data: [{ b64_json }] }` with a PNG of the requested size. */
  const succeed: Behaviour = async (req, res) => {
    const [w, h] = String(req.body.size).split('x').map(Number) as [number, number];
    const png = await sharp({ create: { width: w, height: h, channels: 3, background: '#c0ffee' } })
      .png()
      .toBuffer();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ created: 1_700_000_000, data: [{ b64_json: png.toString('base64'), revised_prompt: 'x' }] }));
  };

  it('sends the OpenAI request shape and returns a PNG resized to the exact aspect size', async () => {
    behaviour = succeed;
    requests.length = 0;
    const generator = new OpenAiImageGenerator({ baseUrl, apiKey: 'sk-test', model: 'test-model' });
    for (const aspect of IMAGE_ASPECTS) {
      const image = await generator.generate({ prompt: 'Sourdough loaf', style: 'cinematic', aspect, index: 0 });
      expect({ width: image.width, height: image.height }).toEqual(ASPECT_SIZES[aspect]);
      const meta = await sharp(image.png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', image.width, image.height]);
    }
    expect(requests).toHaveLength(3);
    const first = requests[0]!;
    expect(first.url).toBe('/v1/images/generations');
    expect(first.authorization).toBe('Bearer sk-test');
    expect(first.body).toMatchObject({ model: 'test-model', n: 1, size: '1024x1024', response_format: 'b64_json' });
    expect(String(first.body.prompt)).toContain('Sourdough loaf');
    expect(requests.map((r) => r.body.size)).toEqual(['1024x1024', '1792x1024', '1024x1792']);
  });

  it('accepts a base URL that already ends in /v1', async () => {
    behaviour = succeed;
    requests.length = 0;
    await new OpenAiImageGenerator({ baseUrl: `${baseUrl}/v1/`, apiKey: 'k' }).generate({
      prompt: 'p',
      style: '3d',
      aspect: '1:1',
      index: 0,
    });
    expect(requests[0]!.url).toBe('/v1/images/generations');
  });

  it('turns a 500 into a ProviderError carrying the status', async () => {
    behaviour = (_req, res) => {
      res.statusCode = 500;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } }));
    };
    const generator = new OpenAiImageGenerator({ baseUrl, apiKey: 'k' });
    const failure = await generator.generate({ prompt: 'p', style: '3d', aspect: '1:1', index: 0 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).status).toBe(500);
  });

  it('turns malformed bodies, non-images and unreachable servers into ProviderErrors', async () => {
    const input = { prompt: 'p', style: 'illustration', aspect: '16:9', index: 0 } as const;
    const generator = new OpenAiImageGenerator({ baseUrl, apiKey: 'k', timeoutMs: 2_000 });
    behaviour = (_req, res) => void res.end('not json');
    await expect(generator.generate(input)).rejects.toBeInstanceOf(ProviderError);
    behaviour = (_req, res) => void res.end(JSON.stringify({ data: [] }));
    await expect(generator.generate(input)).rejects.toBeInstanceOf(ProviderError);
    behaviour = (_req, res) => void res.end(JSON.stringify({ data: [{ b64_json: Buffer.from('no image').toString('base64') }] }));
    await expect(generator.generate(input)).rejects.toBeInstanceOf(ProviderError);
    behaviour = () => {}; // never answers → timeout
    const slow = new OpenAiImageGenerator({ baseUrl, apiKey: 'k', timeoutMs: 200 });
    await expect(slow.generate(input)).rejects.toBeInstanceOf(ProviderError);
    const closed = new OpenAiImageGenerator({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
    await expect(closed.generate(input)).rejects.toBeInstanceOf(ProviderError);
  });

  it('is chosen by createImageGenerator when IMAGE_API_URL is set', () => {
    expect(createImageGenerator({}).name).toBe('local');
    expect(createImageGenerator({ IMAGE_API_URL: baseUrl, IMAGE_API_KEY: 'k' }).name).toBe('openai');
  });
});

describe('image stores', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'register-images-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const makers = { fs: () => new FsImageStore(join(dir, 'images')), memory: () => new MemoryImageStore() };
  for (const [name, make] of Object.entries(makers)) {
    it(`${name}: put, get, replace, delete; refuses keys that could escape`, async () => {
      const store = make();
      expect(await store.get('img_1.png')).toBeNull();
      await store.put('img_1.png', Buffer.from('one'));
      expect((await store.get('img_1.png'))?.toString()).toBe('one');
      await store.put('img_1.png', Buffer.from('two'));
      expect((await store.get('img_1.png'))?.toString()).toBe('two');
      await store.delete('img_1.png');
      await store.delete('img_1.png'); // twice is fine
      expect(await store.get('img_1.png')).toBeNull();
      for (const bad of ['../x.png', 'a/b.png', '', '.hidden', 'a..b']) {
        await expect(store.put(bad, Buffer.from('x'))).rejects.toThrow(TypeError);
        await expect(store.get(bad)).rejects.toThrow(TypeError);
      }
    });
  }

  it('fs: leaves no temporary files behind', async () => {
    const store = new FsImageStore(join(dir, 'clean'));
    await Promise.all([1, 2, 3].map((i) => store.put(`img_${i}.png`, Buffer.alloc(1000, i))));
    expect((await readdir(join(dir, 'clean'))).sort()).toEqual(['img_1.png', 'img_2.png', 'img_3.png']);
  });
});

/**
 * Image bench: the local image generator (`modules/images/generator.ts`) per aspect ratio — images rendered and
 * PNG-encoded per second, one at a time, the four styles in turn, a fresh prompt each time. One line per aspect:
 * size in pixels, images/s, and how many images in how many seconds. No baseline: libvips' own speed is the figure.
 */
import { performance } from 'node:perf_hooks';
import { IMAGE_ASPECTS, IMAGE_STYLES, LocalImageGenerator, type ImageAspect } from '../../sync-server/src/modules/images/generator.ts';

/** Throughput of the local generator for one aspect: images rendered and PNG-encoded per second, one at a time. */
export interface ImageThroughput {
  aspect: ImageAspect;
  width: number;
  height: number;
  images: number;
  seconds: number;
  imagesPerSecond: number;
}

/**
 * Measures {@link LocalImageGenerator} per aspect: a warm-up image, then images in sequence (the four styles in
 * turn, a fresh prompt each time so nothing is cached) until `minSeconds` have passed and at least `minImages` are
 * done. Sequential on purpose: libvips already uses the machine's cores inside one image.
 */
export async function measureImages(options: { minSeconds?: number; minImages?: number } = {}): Promise<ImageThroughput[]> {
  const minSeconds = options.minSeconds ?? 2;
  const minImages = options.minImages ?? 8;
  const generator = new LocalImageGenerator();
  const results: ImageThroughput[] = [];
  for (const aspect of IMAGE_ASPECTS) {
    await generator.generate({ prompt: 'warm-up', style: 'photorealistic', aspect, index: 0 });
    let images = 0;
    let width = 0;
    let height = 0;
    const start = performance.now();
    while (images < minImages || performance.now() - start < minSeconds * 1000) {
      const style = IMAGE_STYLES[images % IMAGE_STYLES.length]!;
      const image = await generator.generate({ prompt: `Bench product ${images}`, style, aspect, index: images });
      width = image.width;
      height = image.height;
      images += 1;
    }
    const seconds = (performance.now() - start) / 1000;
    results.push({ aspect, width, height, images, seconds, imagesPerSecond: images / seconds });
  }
  return results;
}

/** Prints images generated per second for each aspect (local generator, all four styles mixed). */
export async function benchImages(): Promise<void> {
  for (const r of await measureImages()) {
    console.log(
      `images/generate ${r.aspect.padEnd(4)} ${`${r.width}×${r.height}`.padEnd(9)} ` +
        `${r.imagesPerSecond.toFixed(1)} images/s (${r.images} images in ${r.seconds.toFixed(2)} s, local generator, 4 styles)`,
    );
  }
}

/**
 * Generated images: image generation for apps and staff, and where the PNGs live until purged.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// HTTP routes, mounted by app.ts.
export { registerImageRoutes, type ImageOptions } from './routes.ts';

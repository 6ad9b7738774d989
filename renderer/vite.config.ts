import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web register: React app rooted at renderer/, built to renderer/dist (served by the sync server at `/`).
 * A Workbox service worker precaches the whole app shell, so a reload during an internet outage still opens the
 * register; the data then comes from IndexedDB.
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  plugins: [
    react(),
    VitePWA({
      registerType: 'autoUpdate',
      strategies: 'generateSW',
      // main.tsx registers the worker itself through `virtual:pwa-register`.
      injectRegister: false,
      includeAssets: ['icon.svg'],
      manifest: {
        name: 'Register — point of sale',
        short_name: 'Register',
        description: 'Offline-first point of sale register',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#f4f5f7',
        theme_color: '#1f3a5f',
        icons: [
          { src: 'icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
          { src: 'icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icon-512.png', sizes: '512x512', type: 'image/png' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,woff2,webmanifest}'],
        navigateFallback: 'index.html',
        // API calls, hosted pay pages, the OAuth 2.0 authorization server (an external app's connect page sends the
        // owner's browser to /oauth/authorize on the register's own origin) and well-known files must always reach
        // the server, never the app shell.
        navigateFallbackDenylist: [/^\/api\//, /^\/pay\//, /^\/oauth\//, /^\/\.well-known\//],
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
        maximumFileSizeToCacheInBytes: 5 * 1024 * 1024,
      },
    }),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 2000,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: 'http://localhost:8787', changeOrigin: true },
    },
  },
});

import { defineConfig } from 'vite';

// The console is a static page the worker bundles and `switchyard serve` answers at `/`: relative
// asset paths, no source maps shipped, one hashed script and one stylesheet.
export default defineConfig({
  base: './',
  build: { outDir: 'dist', sourcemap: false, target: 'es2022', reportCompressedSize: true },
});

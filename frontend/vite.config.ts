/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// Vite builds the UI into dist/, which main.go embeds into the binary. Each
// build empties dist/; public/.gitkeep is copied back into it so the keep-file
// git tracks there (for `go vet` in a fresh clone) survives.
// WebKitGTK 2.4x (Debian bookworm) is Safari 16 class, hence the target.
// index.html carries the page's Content-Security-Policy. The dev server
// (npm run dev) runs an inline preamble and may talk to another origin
// (VITE_LOUPE_API), so only there the policy is left out; builds keep it.
const devWithoutPolicy: Plugin = {
  name: 'loupe-dev-without-csp',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace(/<meta\s+http-equiv="Content-Security-Policy"[^>]*>/, ''),
};

export default defineConfig({
  plugins: [react(), devWithoutPolicy],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: ['es2022', 'safari16'],
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
});

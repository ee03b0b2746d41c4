/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Vite builds the UI into dist/, which main.go embeds into the binary. Each
// build empties dist/; public/.gitkeep is copied back into it so the keep-file
// git tracks there (for `go vet` in a fresh clone) survives.
// WebKitGTK 2.4x (Debian bookworm) is Safari 16 class, hence the target.
export default defineConfig({
  plugins: [react()],
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

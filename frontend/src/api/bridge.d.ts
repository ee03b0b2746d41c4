// The shape of the bridge Wails injects into the window. Only the API layer
// (this folder) reads it; everything else goes through ./index.ts.
export {};

declare global {
  interface Window {
    go?: {
      app?: {
        App?: Record<string, (...args: unknown[]) => Promise<unknown>>;
      };
    };
    runtime?: {
      EventsOn(name: string, callback: (...data: unknown[]) => void): () => void;
      OnFileDrop(callback: (x: number, y: number, paths: string[]) => void, useDropTarget: boolean): void;
      OnFileDropOff(): void;
      BrowserOpenURL?(url: string): void;
    };
  }
}

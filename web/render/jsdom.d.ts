// The part of jsdom's API the renderer (node.tsx) and e2e/render.spec.ts use; jsdom
// ships no types and @types/jsdom would be one more dependency for two lines.
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string, options?: { contentType?: string; url?: string });
    readonly window: Window & typeof globalThis;
  }
}

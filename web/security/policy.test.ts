import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { captureContentType, headerCsp, metaCsp, netlifyHeaders, nginxSnippet, pageOf, securityHeaders } from './policy';

const root = new URL('../../', import.meta.url);
const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v] as const));

describe('security policy (issue 18, item 1)', () => {
  it('has no unsafe-inline or unsafe-eval, only wasm-unsafe-eval', () => {
    expect(metaCsp()).not.toMatch(/'unsafe-inline'|'unsafe-eval'/);
    expect(directives(metaCsp()).get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(directives(metaCsp()).get('worker-src')).toEqual(["'self'"]);
  });

  it("connects to its own origin, and to https: only (for #url=), never http:", () => {
    expect(directives(metaCsp()).get('connect-src')).toEqual(["'self'", 'https:']);
  });

  it('lets only the embed page be framed', () => {
    expect(directives(headerCsp('app')).get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives(headerCsp('embed')).get('frame-ancestors')).toEqual(['*']);
    expect(pageOf('/embed.html')).toBe('embed');
    expect(pageOf('/sub/embed.html')).toBe('embed');
    expect(pageOf('/')).toBe('app');
    expect(pageOf('/assets/decoder.worker-abc.js')).toBe('app');
    expect(pageOf('/embedded.pcap')).toBe('app');
  });

  it('Permissions-Policy turns device APIs off, naming only features Chromium recognises (no bluetooth)', () => {
    // e2e/security.spec.ts checks that Chromium logs nothing about the header on a load.
    expect(securityHeaders('app')['Permissions-Policy']).toBe('camera=(), microphone=(), geolocation=(), usb=(), serial=()');
    expect(securityHeaders('embed')['Permissions-Policy']).toBe(securityHeaders('app')['Permissions-Policy']);
  });

  it('public/_headers is generated from this policy', () => {
    expect(readFileSync(new URL('public/_headers', root), 'utf8')).toBe(netlifyHeaders());
  });

  it('captures are served as application/vnd.tcpdump.pcap, other files keep theirs', () => {
    expect(captureContentType('/examples/healthy.pcap')).toBe('application/vnd.tcpdump.pcap');
    expect(captureContentType('/examples/pcapng-zero-window.PCAPNG')).toBe('application/vnd.tcpdump.pcap');
    expect(captureContentType('/examples/index.json')).toBeNull();
    expect(captureContentType('/x.pcap.gz')).toBeNull(); // gzip: the server's own type
    expect(netlifyHeaders()).toContain('/*.pcapng\n  Content-Type: application/vnd.tcpdump.pcap');
  });

  it('docs/DEPLOY.md shows the nginx snippet of this policy', () => {
    expect(readFileSync(new URL('docs/DEPLOY.md', root), 'utf8')).toContain(nginxSnippet());
  });
});

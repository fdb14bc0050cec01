// Install without Rust (issue 16): `npm pack` gives a tarball holding the built wasm;
// `npm install ./tcpscope-*.tgz` in an empty folder, then `npx tcpscope analyze` and
// `npx tcpscope render`, work with no cargo on PATH: the tarball holds the built wasm
// and the renderer's bundle (build/render). The renderer's two runtime dependencies
// (jsdom; @resvg/resvg-js, whose platform binary is an npm optional dependency) come
// from the npm cache, or from the registry as for any user (prefer-offline: only what
// the cache lacks, such as their package metadata on a first run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('npm pack → npm install of the tarball in an empty folder → tcpscope analyze and render', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tcpscope-install-'));
  const packed = join(tmp, 'packed');
  const site = join(tmp, 'site');
  mkdirSync(packed);
  mkdirSync(site);
  // --ignore-scripts: `prepack` rebuilds build/render, and Vite empties that folder first,
  // while the other CLI tests (run beside this one) are reading it: a render test then
  // failed with "the renderer is not built" (fresh-clone CI, a6b9f99). npm test builds
  // the wasm and the renderer before the CLI tests, so the tarball packs those builds.
  for (const built of ['wasm/pkg/tcpscope_core_bg.wasm', 'build/render/render.mjs']) {
    assert.ok(existsSync(join(root, built)), `${built} is built (npm run build:wasm, npm run build:render)`);
  }
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packed, '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const [tarball] = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote a tarball');
  const listing = execFileSync('tar', ['-tzf', join(packed, tarball)], { encoding: 'utf8' });
  assert.match(listing, /package\/wasm\/pkg\/tcpscope_core_bg\.wasm/, 'the built wasm is inside');
  assert.match(listing, /package\/build\/render\/render\.mjs/, 'the renderer bundle is inside');
  // Of web/, only the one formatter the CLI writes its numbers with (web/model/format.mjs)
  // and the one way it asks the engine (web/worker/ask.mjs).
  assert.doesNotMatch(listing, /\.test\.mjs|^package\/web\/(?!model\/format\.mjs$|worker\/ask\.mjs$)|package\/wasm\/src/m, 'only what the CLI needs');
  assert.match(listing, /^package\/web\/model\/format\.mjs$/m, 'the formatter is inside');
  assert.match(listing, /^package\/web\/worker\/ask\.mjs$/m, 'the engine\'s one question is inside');

  // A machine without Rust: PATH has node and the system tools, not ~/.cargo/bin.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_prefer_offline: 'true' };
  writeFileSync(join(site, 'package.json'), '{"name":"site","private":true}\n');
  execFileSync('npm', ['install', '--silent', join(packed, tarball)], { cwd: site, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const report = JSON.parse(execFileSync('npx', ['--no-install', 'tcpscope', 'analyze', join(root, 'public', 'examples', 'rwnd-limited.pcap'), '--json'], { cwd: site, env, encoding: 'utf8' }));
  // rwnd-limited.pcap: 8731 packets, 2 connections (public/examples/README.md).
  assert.equal(report.capture.packets, 8731);
  assert.equal(report.connections.length, 2);
  for (const out of ['fig.svg', 'fig.png']) {
    execFileSync('npx', ['--no-install', 'tcpscope', 'render', join(root, 'public', 'examples', 'rwnd-limited.pcap'), '--chart', 'inflight', '--out', out], { cwd: site, env, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  assert.match(readFileSync(join(site, 'fig.svg'), 'utf8'), /^<svg [^>]*data-chart="inflight"/);
  assert.equal(readFileSync(join(site, 'fig.png')).subarray(1, 4).toString('latin1'), 'PNG');
});

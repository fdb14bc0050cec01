// Hostile input, round three (issue 45), written as an attacker would: a capture whose
// process names hold terminal escapes, a link whose fields are crafted, a capture that
// quotes a link in its payload, a folder with symlink loops and a FIFO, figures written
// onto folders, missing folders and their own input. Each test failed on main (5d30630).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { escapeUnsafe, isolated, jsonSafe, outsideText } from './outsideText.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const examples = join(root, 'public', 'examples');
const noWasm = !existsSync(join(root, 'wasm', 'pkg', 'tcpscope_core_bg.wasm')) && 'wasm not built (npm run build:wasm)';
const noRender = noWasm || (!existsSync(join(root, 'build', 'render', 'render.mjs')) && 'renderer not built (npm run build:render)');
const dir = mkdtempSync(join(tmpdir(), 'tcpscope-hostile-'));

function run(args, options = {}) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, ...args], { encoding: 'latin1', timeout: 60_000, ...options });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', signal: r.signal };
}

/** A byte a terminal acts on: C0 but LF, DEL, and C1 as UTF-8 (C2 80..C2 9F). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]/;
const assertNoRawControl = (text, what) => {
  const m = RAW_CONTROL.exec(text);
  assert.equal(m, null, `${what} holds a raw control byte ${JSON.stringify(m?.[0])} at ${m?.index}: ${JSON.stringify(text.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 40))}`);
};

// e2e/fixtures/pktap-processes.pcap (wasm/tests/decode_links.rs `pktap_capture`): Apple
// PKTAP frames naming Safari (pid 512) and curl (pid 77) in their 20-byte command fields.
// The attacker's names: an OSC retitling the window, BEL, a right-to-left override, a C1
// CSI (U+009B); and a newline forging a second `limit:` line.
const HOSTILE_SAFARI = Buffer.from('\x1b]0;owned\x07', 'latin1');
const HOSTILE_CURL = Buffer.from('\nlimit: receive-win', 'latin1');
const RLO_C1 = Buffer.from([0xe2, 0x80, 0xae, 0xc2, 0x9b, 0x32, 0x4a]); // U+202E, U+009B, "2J"
function hostileCapture() {
  const bytes = readFileSync(join(root, 'e2e', 'fixtures', 'pktap-processes.pcap'));
  const patch = (name, value) => {
    const field = Buffer.alloc(20);
    field.write(name, 'latin1');
    const hostile = Buffer.alloc(20);
    value.copy(hostile);
    for (let i = bytes.indexOf(field); i >= 0; i = bytes.indexOf(field, i + 1)) hostile.copy(bytes, i);
  };
  patch('Safari', Buffer.concat([HOSTILE_SAFARI, RLO_C1]));
  patch('curl', HOSTILE_CURL);
  const path = join(dir, 'hostile-names.pcap');
  writeFileSync(path, bytes);
  return path;
}

test('the sanitizer: controls and bidi escaped visibly, length capped, non-strings dropped', () => {
  assert.equal(outsideText('Safari'), 'Safari');
  assert.equal(outsideText('\x1b]0;owned\x07'), '\\x1b]0;owned\\x07');
  assert.equal(outsideText('a\nb\rc\td\b'), 'a\\nb\\rc\\td\\x08');
  assert.equal(outsideText('\u202egnp.exe'), '\\u{202E}gnp.exe');
  assert.equal(outsideText('\u009b2J\u2028\u200b\ufeff'), '\\x9b2J\\u{2028}\\u{200B}\\u{FEFF}');
  assert.equal(outsideText('a\ud800b'), 'a\ufffdb', 'a lone surrogate is not text');
  assert.equal(outsideText('😀'.repeat(3), 3), '😀😀😀', 'code points, not UTF-16 units');
  assert.equal(outsideText('x'.repeat(60_000), 10), `${'x'.repeat(9)}…`);
  assert.equal(outsideText('ab\x1bcd', 4), 'ab…', 'an escape is never cut in half');
  assert.equal(outsideText({ toString: () => '\x1b' }), '');
  assert.equal(outsideText('שלום'), 'שלום', 'right-to-left letters stay (the page isolates them)');
  assert.equal(isolated('Safari'), 'Safari', 'ASCII needs no isolation');
  assert.equal(isolated('שלום'), '\u2068שלום\u2069');
  assert.equal(escapeUnsafe('x'.repeat(500)).length, 500, 'escapeUnsafe does not cap');
  const json = jsonSafe(JSON.stringify({ a: '\u202e\u009b\x7f', b: '\ud800' }, null, 2));
  assert.deepEqual(JSON.parse(json), { a: '\u202e\u009b\x7f', b: '\ud800' }, 'the same JSON value');
  assertNoRawControl(Buffer.from(json, 'utf8').toString('latin1'), 'jsonSafe');
  // Random strings: never a raw control, never longer than the cap (a small fuzz).
  let seed = 45;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let round = 0; round < 20_000; round++) {
    const s = Array.from({ length: Math.floor(next() * 40) }, () => String.fromCharCode(next() < 0.5 ? Math.floor(next() * 0x300) : Math.floor(next() * 0x10000))).join('');
    const max = 1 + Math.floor(next() * 30);
    const out = outsideText(s, max);
    assert.ok(Array.from(out).length <= max, JSON.stringify([s, max, out]));
    assertNoRawControl(Buffer.from(out, 'utf8').toString('latin1'), JSON.stringify(s));
    assert.equal(out, out.toWellFormed(), 'well-formed UTF-16');
  }
});

test('1. analyze: escapes in a pcapng process name never reach the terminal, and forge no line', { skip: noWasm }, () => {
  const capture = hostileCapture();
  for (const format of [[], ['--json'], ['--ndjson']]) {
    const r = run(['analyze', capture, ...format]);
    assert.equal(r.code, 0, r.stderr);
    assertNoRawControl(r.stdout, `analyze ${format.join(' ')} stdout`);
    assertNoRawControl(r.stderr, `analyze ${format.join(' ')} stderr`);
  }
  const human = run(['analyze', capture]).stdout;
  // Two connections, two diagnosis lines: the newline in curl's name forged none.
  assert.equal(human.split('\n').filter((l) => /^\s*limit:/.test(l)).length, 2, human);
  assert.match(human, /\[\\x1b\]0;owned\\x07\\u\{202E\}\\x9b2J \(pid 512\)\]/, 'shown escaped, visibly');
  assert.match(human, /\[\\nlimit: receive-win \(pid 77\)\]/);
  // --json keeps the value itself (a program reading it gets the name the capture holds).
  const report = JSON.parse(Buffer.from(run(['analyze', capture, '--json']).stdout, 'latin1').toString('utf8'));
  assert.equal(report.connections.find((c) => c.process?.pid === 512).process.name, '\x1b]0;owned\x07\u202e\u009b2J');
});

/** A share link of `capture` whose JSON part is changed by `edit` (format 3/4: header,
 *  uvarint length, deflated part — uvarint JSON length, JSON, rest —, coded part). */
function craftedLink(capture, edit) {
  const link = execFileSync(process.execPath, [...NODE_ARGS, bin, 'share', capture, '--connection', '1'], { encoding: 'utf8' }).trim();
  const [base, fragment] = link.split('#');
  const params = new URLSearchParams(fragment);
  const bytes = Buffer.from(params.get('snap'), 'base64url');
  const uvarint = (b, at) => {
    let value = 0;
    let shift = 0;
    for (let i = at; ; i++) {
      value += (b[i] & 0x7f) * 2 ** shift;
      shift += 7;
      if (b[i] < 0x80) return [value, i + 1];
    }
  };
  const encode = (n) => {
    const out = [];
    do {
      out.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return Buffer.from(out);
  };
  const [packedLength, packedAt] = uvarint(bytes, 11);
  const payload = inflateRawSync(bytes.subarray(packedAt, packedAt + packedLength));
  const [metaLength, metaAt] = uvarint(payload, 0);
  const meta = JSON.parse(payload.subarray(metaAt, metaAt + metaLength).toString('utf8'));
  edit(meta);
  const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8');
  const newPayload = Buffer.concat([encode(metaBytes.length), metaBytes, payload.subarray(metaAt + metaLength)]);
  const packed = deflateRawSync(newPayload);
  const header = Buffer.from(bytes.subarray(0, 11));
  header.writeUInt32LE(newPayload.length, 7);
  const snapshot = Buffer.concat([header, encode(packed.length), packed, bytes.subarray(packedAt + packedLength)]);
  params.set('snap', snapshot.toString('base64url'));
  return `${base}#${params.toString()}`;
}

test('1. series: a link\'s notes and names print escaped on stderr; render echoes no decoded escapes', { skip: noRender }, () => {
  const capture = join(examples, 'rwnd-limited.pcap');
  // Every stall the link lists ends "by" an OSC that retitles the window.
  const link = craftedLink(capture, (m) => {
    m.name = '\x1b[2J\x1b]0;owned\x07';
    for (const d of m.summary.directions) for (const s of d.stalls) s.endedBy = '\x1b]0;owned\x07';
  });
  for (const series of ['throughput', 'stalls']) {
    const r = run(['series', link, '--connection', '1', '--series', series, '--csv']);
    assertNoRawControl(r.stderr, `series ${series} stderr`);
    assertNoRawControl(r.stdout, `series ${series} stdout`);
  }
  const out = join(dir, 'theme.svg');
  const rendered = run(['render', capture, '--out', out, '--view', '#theme=%1b[2J%1b]0;owned%07']);
  assert.equal(rendered.code, 0, rendered.stderr);
  assertNoRawControl(rendered.stderr, 'render stderr');
  assert.match(rendered.stderr, /#theme=\\x1b\[2J\\x1b\]0;owned\\x07 was ignored/);
});

test('3. render: a link whose process name is an object is refused, exit not 0, no stack trace', { skip: noRender }, () => {
  const link = craftedLink(join(examples, 'rwnd-limited.pcap'), (m) => {
    m.summary.process = { name: { toString: 1 }, pid: 1 };
  });
  const out = join(dir, 'object-name.svg');
  const r = run(['render', link, '--out', out]);
  assert.notEqual(r.code, 0, 'no figure, so not a success');
  assert.equal(existsSync(out), false);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.match(r.stderr, /summary\.process\.name should be a string/);
  // One line saying what, then where to look (issue 42, item 3).
  assert.deepEqual(r.stderr.trim().split('\n').slice(1), ['try: tcpscope help render'], r.stderr);
  // The same for series and a fractional connection id.
  const fractional = craftedLink(join(examples, 'rwnd-limited.pcap'), (m) => {
    m.summary.id = 1.5;
  });
  const s = run(['series', fractional, '--connection', '1', '--series', 'throughput', '--json']);
  assert.equal(s.code, 1);
  assert.match(s.stderr, /summary\.id should be a whole connection number/);
});

test('4. render: control characters in a process name give a well-formed SVG and a PNG', { skip: noRender }, () => {
  const capture = hostileCapture();
  for (const ext of ['svg', 'png']) {
    const out = join(dir, `names.${ext}`);
    const r = run(['render', capture, '--connection', '0', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    const bytes = readFileSync(out);
    if (ext === 'png') assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
    else {
      // XML 1.0 §2.2: no C0 but tab, LF, CR anywhere in the document.
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(bytes.toString('utf8'), /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/);
      assert.match(bytes.toString('utf8'), /\\x1b\]0;owned\\x07/, 'the name is in the title, escaped');
    }
  }
});

/** `capture` with one more frame first: an Ethernet frame of an unassigned EtherType
 *  carrying `text` (as a capture of any protocol may carry any text). */
function captureCarrying(capture, text, name) {
  const bytes = readFileSync(capture);
  const first = bytes.subarray(24, 24 + 16);
  const frame = Buffer.concat([Buffer.alloc(12, 0x02), Buffer.from([0x88, 0xb5]), Buffer.from(text, 'latin1')]);
  const header = Buffer.from(first);
  const little = bytes.readUInt32LE(0) === 0xa1b2c3d4;
  header[little ? 'writeUInt32LE' : 'writeUInt32BE'](frame.length, 8);
  header[little ? 'writeUInt32LE' : 'writeUInt32BE'](frame.length, 12);
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([bytes.subarray(0, 24), header, frame, bytes.subarray(24)]));
  return path;
}

test('5. a capture whose payload quotes a link is read as a capture, by its magic number', { skip: noWasm }, () => {
  const original = join(examples, 'rwnd-limited.pcap');
  const otherLink = execFileSync(process.execPath, [...NODE_ARGS, bin, 'share', join(examples, 'stalls.pcap'), '--connection', '0'], { encoding: 'utf8' }).trim();
  const series = (path) => run(['series', path, '--connection', '1', '--series', 'throughput', '--json']);
  const reference = JSON.parse(series(original).stdout);
  for (const [name, text] of [['referer.pcap', `GET / HTTP/1.1\r\nReferer: ${otherLink}\r\n\r\n`], ['query.pcap', 'GET /?snap=1 HTTP/1.1\r\n\r\n']]) {
    const r = series(captureCarrying(original, text, name));
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const answer = JSON.parse(r.stdout);
    assert.deepEqual(answer.bytes, reference.bytes, `${name}: the capture's own connection 1, not the link's`);
  }
  // A saved link (a file holding just the link) and a .tcpscope.json file are links.
  const saved = join(dir, 'saved-link.txt');
  writeFileSync(saved, `${otherLink}\n`);
  assert.equal(run(['series', saved, '--connection', '0', '--series', 'throughput', '--json']).code, 0);
});

test('6. directory walks: symlink loops end, each capture once, a FIFO skipped with a note row', { skip: noWasm }, () => {
  const fleet = join(dir, 'fleet');
  mkdirSync(join(fleet, 'sub'), { recursive: true });
  writeFileSync(join(fleet, 'sub', 'a.pcap'), readFileSync(join(examples, 'healthy.pcap')));
  symlinkSync('.', join(fleet, 'loop1'));
  symlinkSync('.', join(fleet, 'loop2'));
  symlinkSync('..', join(fleet, 'sub', 'up'));
  symlinkSync(join('sub', 'a.pcap'), join(fleet, 'same.pcap'));
  execFileSync('mkfifo', [join(fleet, 'blocked.pcap')]);
  // A loop never ends, so any bound tells it; 30 s was exceeded by a loaded machine's Node start + wasm compile.
  const r = run(['analyze', fleet], { timeout: 120_000 });
  assert.equal(r.signal, null, 'the walk ends (no timeout)');
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const captures = rows.filter((x) => x.record === 'capture');
  assert.deepEqual(captures.map((x) => x.file), [join(fleet, 'sub', 'a.pcap')], 'one capture, one row');
  const skipped = Object.fromEntries(rows.filter((x) => x.record === 'skipped').map((x) => [x.file.slice(fleet.length + 1), x.reason]));
  assert.match(skipped['blocked.pcap'], /not a regular file \(a FIFO\)/);
  assert.match(skipped['same.pcap'], /the same file/);
});

test('13. render --out: a missing folder, a folder, the input itself: one line and the help hint, exit 2, nothing touched', { skip: noRender }, () => {
  const capture = join(dir, 'capture-named.png');
  writeFileSync(capture, readFileSync(join(examples, 'stalls.pcap')));
  const before = statSync(capture).size;
  const cases = [
    [[join(examples, 'stalls.pcap'), '--out', join(dir, 'missing', 'fig.svg')], /the folder .* does not exist/],
    [[join(examples, 'stalls.pcap'), '--out', (mkdirSync(join(dir, 'fig.svg'), { recursive: true }), join(dir, 'fig.svg'))], /it is a folder/],
    [[capture, '--out', capture], /it is the input itself/],
  ];
  for (const [args, words] of cases) {
    const r = run(['render', ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, words);
    // One line saying what, then where to look (issue 42, item 3).
    assert.deepEqual(r.stderr.trim().split('\n').slice(1), ['try: tcpscope help render'], r.stderr);
  }
  assert.equal(statSync(capture).size, before, 'the input is untouched');
  const share = run(['share', dir, '--connection', '0']);
  assert.equal(share.code, 2);
  assert.match(share.stderr, /it is a directory/);
});

test('13. a fragment naming snap= twice, one percent-encoded, is refused as the page refuses it', { skip: noWasm }, () => {
  const link = execFileSync(process.execPath, [...NODE_ARGS, bin, 'share', join(examples, 'stalls.pcap'), '--connection', '0'], { encoding: 'utf8' }).trim();
  const snap = new URLSearchParams(link.split('#')[1]).get('snap');
  const r = run(['series', `https://x.example/#sn%61p=${snap}&snap=${snap}`, '--connection', '0', '--series', 'throughput', '--json']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /names two snapshots/);
});

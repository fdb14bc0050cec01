// Tests of `tcpscope slice` (cli/slice.mjs, wasm/src/slice.rs), issue 42 item 6:
// - a whole-connection slice, opened by tshark, gives the same TCP analysis for that
//   connection as the whole file: frame by frame the same times, lengths, sequence and
//   ACK numbers, calculated windows, bytes in flight and analysis flags (retransmission,
//   fast/spurious retransmission, duplicate ACK, lost segment, out of order, zero
//   window). Wireshark's TCP analysis is per conversation (packet-tcp.c), so the other
//   connections of the file cannot change it: any difference is a packet lost, added or
//   altered by the slice. Skipped without tshark.
// - slicing a large capture holds one chunk and one record, not the file.
// - a pair of connections (the compare view's) in one file, each as tshark reads it alone;
//   a gzip capture sliced as the plain one, and a gzip bomb stopped at the inflate caps.
// - usage errors and a connection that is not there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { gzipBomb } from '../scripts/fixtures/gzip-bomb.mjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWasm } from './wasm.mjs';
import { sliceStream } from './slice.mjs';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const examples = join(root, 'public', 'examples');
const shared = process.env.TCPSCOPE_SHARED ? join(process.env.TCPSCOPE_SHARED, 'captures') : join(root, '..', 'shared', 'captures');
const dir = mkdtempSync(join(tmpdir(), 'tcpscope-slice-test-'));
const wasmBuilt = existsSync(join(root, 'wasm', 'pkg', 'tcpscope_core_bg.wasm'));
const hasTshark = spawnSync('tshark', ['-v'], { encoding: 'utf8' }).status === 0;

function slice(...args) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, 'slice', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// What tshark's TCP analysis says of each frame (fields empty where a flag is absent).
const FIELDS = [
  'frame.time_epoch', 'frame.len', 'frame.cap_len', 'tcp.srcport', 'tcp.dstport', 'tcp.seq', 'tcp.ack', 'tcp.len',
  'tcp.window_size', 'tcp.analysis.bytes_in_flight', 'tcp.analysis.retransmission', 'tcp.analysis.fast_retransmission',
  'tcp.analysis.spurious_retransmission', 'tcp.analysis.duplicate_ack_num', 'tcp.analysis.lost_segment',
  'tcp.analysis.out_of_order', 'tcp.analysis.zero_window', 'tcp.analysis.window_full',
];

/** tshark's rows for TCP conversation `stream` of `file` (tcp.stream, Wireshark's connection number). */
function tsharkRows(file, stream) {
  const out = execFileSync('tshark', ['-r', file, '-Y', `tcp.stream == ${stream}`, '-T', 'fields', '-E', 'separator=|', ...FIELDS.flatMap((f) => ['-e', f])], {
    encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'],
  });
  return out.split('\n').filter(Boolean);
}

/**
 * One read of `file` by tshark for every conversation in it (issue 42 item 1: the tests
 * read each file once, not four times per connection, ~0.4 CPU-s a tshark start): each
 * frame's tcp.stream values and its FIELDS row as tsharkRows gives it. tshark dissects
 * every frame in one pass with or without a display filter (-Y only chooses what is
 * printed), so a conversation's rows here are tsharkRows(file, stream)'s.
 */
function tsharkFrames(file) {
  const out = execFileSync('tshark', ['-r', file, '-T', 'fields', '-E', 'separator=|', '-e', 'tcp.stream', ...FIELDS.flatMap((f) => ['-e', f])], {
    encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'],
  });
  return out.split('\n').filter(Boolean).map((line) => {
    const at = line.indexOf('|');
    const row = line.slice(at + 1);
    const fields = row.split('|');
    // A frame with two TCP headers (an ICMP error quoting one) lists both streams, as
    // `tcp.stream == N` matches either.
    return { stream: line.slice(0, at), streams: line.slice(0, at).split(','), row, srcport: fields[FIELDS.indexOf('tcp.srcport')], dstport: fields[FIELDS.indexOf('tcp.dstport')] };
  });
}

/** The rows of conversation `stream` among tsharkFrames' frames: tsharkRows(file, stream). */
const rowsOf = (frames, stream) => frames.filter((f) => f.streams.includes(String(stream))).map((f) => f.row);

/** Connections of `file` as the report numbers them (tcpscope analyze --json, run in process: cli/testing/in-process.mjs). */
async function connections(file) {
  const r = await runInProcess('analyze', file, '--json');
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).connections;
}

// Examples of several kinds: pcap µs and ns, Linux cooked v2, IPv6, loss with SACK,
// zero windows, a pcapng, two connections in one file; public captures when present.
const CAPTURES = [
  ...['loss-1pct.pcap', 'nanosecond.pcap', 'sll2-any.pcap', 'rx-ipv6-loss.pcap', 'zero-window.pcap', 'pcapng-zero-window.pcapng', 'mptcp-two-paths.pcap'].map((f) => join(examples, f)),
  ...['chrissanders__tcp_retransmissions.pcapng', 'chrissanders__tcp_dupack.pcapng', 'chrissanders__tcp_zerowindowrecovery.pcapng',
    'DERIVED_multi_interface__ssh+resp_1_benchmark.pcapng', 'chrissanders__http_ip4and6.pcapng'].map((f) => join(shared, f)).filter(existsSync),
];

for (const file of CAPTURES) {
  test(`tshark reads a whole-connection slice of ${file.split('/').pop()} as the whole file's connection`, { skip: (!hasTshark && 'no tshark') || (!wasmBuilt && 'wasm not built') }, async () => {
    const conns = await connections(file);
    assert.ok(conns.length > 0);
    const frames = tsharkFrames(file);
    // Every connection of small files; the first three of larger ones.
    for (const c of conns.slice(0, 3)) {
      const out = join(dir, `${file.split('/').pop()}-${c.id}.pcapng`);
      const r = slice(file, '--connection', String(c.id), '--out', out);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`: ${c.packets.toLocaleString('en-US')} packets of connection ${c.id} `));
      // Wireshark's stream of this connection in the whole file: its first frame's ports.
      const ports = c.endpoints.map((e) => e.slice(e.lastIndexOf(':') + 1));
      const first = frames.find(({ stream: s, srcport: a, dstport: b }) => s !== '' && ((a === ports[0] && b === ports[1]) || (a === ports[1] && b === ports[0])));
      assert.ok(first, `tshark has connection ${c.endpoints.join(' ⇄ ')}`);
      const whole = rowsOf(frames, first.stream);
      const slicedFrames = tsharkFrames(out);
      const sliced = rowsOf(slicedFrames, 0);
      assert.equal(sliced.length, c.packets, 'the slice holds the connection\'s packets');
      assert.deepEqual(sliced, whole, `connection ${c.id}: tshark's analysis, frame by frame`);
      // And one conversation only.
      assert.equal(rowsOf(slicedFrames, 1).length, 0);
    }
  });
}

test('a time range keeps the connection\'s packets in it, as the charts\' seconds', { skip: (!hasTshark && 'no tshark') || (!wasmBuilt && 'wasm not built') }, () => {
  const file = join(examples, 'stalls.pcap');
  const out = join(dir, 'range.pcapng');
  const r = slice(file, '--connection', '0', '--from', '0.5', '--to', '1', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  // tshark's frame.time_relative is the same axis: seconds since the first packet of the file.
  const inRange = execFileSync('tshark', ['-r', file, '-Y', 'frame.time_relative >= 0.5 && frame.time_relative <= 1', '-T', 'fields', '-e', 'frame.time_epoch'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const kept = execFileSync('tshark', ['-r', out, '-T', 'fields', '-e', 'frame.time_epoch'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  assert.ok(kept.split('\n').filter(Boolean).length > 100);
  assert.equal(kept, inRange);
});

test('slicing a large capture holds one chunk and one record, not the file', { skip: !wasmBuilt && 'wasm not built' }, async () => {
  const { wasm } = await loadWasm();
  // 256 MiB of capture: an example's records repeated, produced lazily one 1 MiB chunk at
  // a time (nothing holds the whole input); the output is counted and dropped. Holding
  // the input would add 256 MiB of resident memory; the bound asserted below is half that.
  const one = readFileSync(join(examples, 'loss-1pct.pcap'));
  const body = one.subarray(24);
  // Whole copies of the records, so the file ends at a record's end.
  const TOTAL = one.length + Math.ceil((256 << 20) / body.length) * body.length;
  let produced = 0;
  let pulledAhead = 0;
  let written = 0;
  async function* chunks() {
    yield one;
    produced = one.length;
    let at = 0;
    while (produced < TOTAL) {
      // 1 MiB chunks cut anywhere (records span chunk edges).
      const piece = Buffer.alloc(Math.min(1 << 20, TOTAL - produced));
      let filled = 0;
      while (filled < piece.length) {
        const n = body.copy(piece, filled, at);
        filled += n;
        at = (at + n) % body.length;
      }
      produced += piece.length;
      pulledAhead = Math.max(pulledAhead, produced - consumed);
      yield piece;
    }
  }
  let consumed = 0;
  const rss = [];
  const stats = await sliceStream(wasm, (async function* () {
    for await (const c of chunks()) {
      yield c;
      consumed += c.length;
      if (consumed % (64 << 20) < (1 << 20)) rss.push(process.memoryUsage().rss);
    }
  })(), { connection: 1 }, async (bytes) => { written += bytes.length; });
  assert.ok(stats.packetsRead > 2_000_000, `${stats.packetsRead} packets read`);
  if (process.env.TCPSCOPE_SLICE_DEBUG) console.log({ ...stats, written, pulledAhead, rssMiB: rss.map((b) => Math.round(b / 2 ** 20)) });
  assert.ok(written > 200 << 20, `the connection's packets were written (${written} bytes)`);
  // The slicer held at most one record (the example's are ≤ 1,514 bytes) for a chunk edge.
  assert.ok(stats.peakBuffer <= 4096, `slicer buffer ${stats.peakBuffer} bytes`);
  // The input was pulled one chunk at a time, after the previous chunk was sliced.
  assert.ok(pulledAhead <= 2 << 20, `pulled ${pulledAhead} bytes ahead`);
  // Resident memory did not grow with the input: the last sample is within 128 MiB of the first.
  assert.ok(rss.at(-1) - rss[0] < 128 << 20, `RSS ${rss.map((b) => Math.round(b / 2 ** 20)).join(', ')} MiB`);
});

test('usage errors say what is wrong (exit 2); a connection that is not there writes nothing (exit 1)', { skip: !wasmBuilt && 'wasm not built' }, () => {
  const file = join(examples, 'stalls.pcap');
  const out = join(dir, 'none.pcapng');
  for (const [args, message] of [
    [[file, '--out', out], /^tcpscope: missing --connection N$/m],
    [[file, '--connection', 'x', '--out', out], /^tcpscope: --connection needs a connection id \(a whole number\), got 'x'$/m],
    [[file, '--connection', '0'], /^tcpscope: missing --out FILE\.pcapng$/m],
    [[file, '--connection', '0', '--from', '2', '--to', '1', '--out', out], /^tcpscope: --to must not be before --from$/m],
  ]) {
    const r = slice(...args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
  }
  // A capture that cannot be opened: exit 1 (issue 42, item 3), its sentence, not an object.
  const missing = slice(join(dir, 'no-such.pcap'), '--connection', '0', '--out', out);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^tcpscope: cannot open '.*no-such\.pcap': no such file\ntry: tcpscope help slice\n$/);
  assert.equal(slice(dir, '--connection', '0', '--out', out).code, 2, 'a folder where one capture is wanted');
  const r = slice(file, '--connection', '7', '--out', out);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^tcpscope: no packet of connection 7 in '.*stalls\.pcap' \(connections: 0\.\.0\); nothing was written\ntry: tcpscope help slice\n$/);
  assert.equal(existsSync(out), false);
});

test('two --connection values: one pcapng holding both, each as tshark reads it in the whole file', { skip: (!hasTshark && 'no tshark') || (!wasmBuilt && 'wasm not built') }, async () => {
  const file = join(examples, 'sll2-any.pcap');
  const conns = (await connections(file)).sort((a, b) => b.packets - a.packets).slice(0, 2);
  const out = join(dir, 'pair.pcapng');
  const r = slice(file, '--connection', String(conns[0].id), '--connection', String(conns[1].id), '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const total = conns[0].packets + conns[1].packets;
  assert.match(r.stdout, new RegExp(`: ${total.toLocaleString('en-US')} packets of connections ${conns[0].id}, ${conns[1].id} \\(${conns[0].packets.toLocaleString('en-US')} \\+ ${conns[1].packets.toLocaleString('en-US')}; of `));
  // Two conversations in the slice, each frame by frame the whole file's.
  const singles = conns.map((c) => {
    const one = join(dir, `pair-${c.id}.pcapng`);
    assert.equal(slice(file, '--connection', String(c.id), '--out', one).code, 0);
    return tsharkRows(one, 0);
  });
  const pair = tsharkFrames(out);
  const both = [rowsOf(pair, 0), rowsOf(pair, 1)];
  assert.equal(rowsOf(pair, 2).length, 0);
  // tshark numbers streams in order of first packet: match them by their first frame's time.
  both.sort((a, b) => Number(a[0].split('|')[0]) - Number(b[0].split('|')[0]));
  singles.sort((a, b) => Number(a[0].split('|')[0]) - Number(b[0].split('|')[0]));
  assert.deepEqual(both, singles);
  // A pair with one side missing is not the pair: nothing is written.
  const bad = slice(file, '--connection', String(conns[0].id), '--connection', '999', '--out', join(dir, 'bad.pcapng'));
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^tcpscope: no packet of connection 999 in /);
  assert.equal(existsSync(join(dir, 'bad.pcapng')), false);
  assert.equal(slice(file, '--connection', '1', '--connection', '1', '--out', out).code, 2);
});

test('a gzip capture slices to the same pcapng as the plain one; a gzip bomb stops at the inflate caps', { skip: !wasmBuilt && 'wasm not built' }, async () => {
  const plain = join(examples, 'loss-1pct.pcap');
  const gz = join(dir, 'loss-1pct.pcap.gz');
  writeFileSync(gz, gzipSync(readFileSync(plain)));
  const [a, b] = [join(dir, 'plain.pcapng'), join(dir, 'gz.pcapng')];
  assert.equal(slice(plain, '--connection', '1', '--out', a).code, 0);
  assert.equal(slice(gz, '--connection', '1', '--out', b).code, 0);
  assert.ok(readFileSync(a).equals(readFileSync(b)));
  // 8 GiB of empty records from a few MiB of gzip on standard input: stopped past 64 MiB
  // inflated (the ratio cap, wasm/src/inflate.rs) with analyze's sentence, nothing written.
  const out = join(dir, 'bomb.pcapng');
  const cli = spawn(process.execPath, [...NODE_ARGS, bin, 'slice', '-', '--connection', '0', '--out', out], { stdio: ['pipe', 'pipe', 'pipe'] });
  const bomb = gzipBomb(8 * 2 ** 30);
  bomb.pipe(cli.stdin);
  cli.stdin.on('error', () => {});
  let stderr = '';
  cli.stderr.on('data', (d) => (stderr += d));
  const status = await new Promise((resolve) => cli.on('close', resolve));
  bomb.unpipe();
  bomb.destroy();
  assert.equal(status, 1, stderr);
  assert.match(stderr, /^tcpscope: cannot slice '-': The gzip stream inflates more than 200:1 \(6\d MiB from \d+ KiB compressed\)/);
  assert.equal(existsSync(out), false);
});

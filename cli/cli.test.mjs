// Tests of `tcpscope analyze` (bin/tcpscope.mjs) through a real child process, over
// the wasm module built into wasm/pkg.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';
import { retransmissionKinds } from './format.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const examples = join(root, 'public', 'examples');
const tmp = mkdtempSync(join(tmpdir(), 'tcpscope-cli-'));

function run(...args) {
  const result = spawnSync(process.execPath, [...NODE_ARGS, bin, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function file(name, bytes) {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
}

test('usage errors exit 2 and say what is wrong', () => {
  assert.equal(run().code, 2);
  assert.match(run('frobnicate').stderr, /unknown command 'frobnicate'/);
  assert.match(run('analyze').stderr, /missing CAPTURE/);
  assert.match(run('analyze', 'x.pcap', '--stall-ms', 'soon').stderr, /--stall-ms needs a positive number/);
  assert.match(run('analyze', join(tmp, 'nope.pcap')).stderr, /no such file/);
});

test('a file that is not a capture: exit 1, JSON error, nothing decoded', () => {
  const r = run('analyze', file('page.html', '<!doctype html><html><body>hello</body></html>'), '--json');
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout);
  assert.equal(report.schemaVersion, 1);
  assert.equal(report.capture.packets, 0);
  assert.equal(report.error.byteOffset, 0);
  assert.match(report.error.message, /pcap/i);
});

test('an empty file is an error, not a crash', () => {
  const r = run('analyze', file('empty.pcap', ''), '--json');
  assert.equal(r.code, 1);
  assert.match(JSON.parse(r.stdout).error.message, /empty/i);
});

const manifest = join(examples, 'index.json');
test('every example capture decodes without error, plain and gzip-compressed alike', { skip: !existsSync(manifest) && 'no examples' }, async () => {
  // In process (cli/testing/in-process.mjs: the command's own function, ~50 × 3 runs);
  // the first capture also through a child process, which must print the same report.
  const names = JSON.parse(readFileSync(manifest, 'utf8')).map((e) => e.file);
  for (const name of names) {
    const path = join(examples, name);
    const plain = await runInProcess('analyze', path, '--json');
    assert.equal(plain.code, 0, `${name}: ${plain.stderr}`);
    const report = JSON.parse(plain.stdout);
    assert.equal(report.error, null);
    assert.ok(report.connections.length >= 1, `${name} has TCP connections`);
    const zipped = await runInProcess('analyze', file(`${name}.gz`, gzipSync(readFileSync(path))), '--json');
    assert.deepEqual(JSON.parse(zipped.stdout), report, `${name}.gz gives the same report`);
    const human = await runInProcess('analyze', path);
    assert.match(human.stdout, /limit: /);
    if (name === names[0]) {
      const spawned = run('analyze', path, '--json');
      assert.equal(spawned.code, 0, spawned.stderr);
      assert.deepEqual(JSON.parse(spawned.stdout), report, `${name}: bin/tcpscope.mjs prints the in-process report`);
      assert.equal(run('analyze', path).stdout, human.stdout, `${name}: the same text from bin/tcpscope.mjs`);
    }
  }
});

test('the text output names the kinds of retransmission and the timeout backoff', () => {
  // bursts-outage.pcap: 38 retransmissions = 5 timeouts + 1 probe + 21 fast / SACK
  // recovery + 11 slow start, 3 spurious; the kernel counted the same 5 / 21 / 11
  // (wasm/tests/retrans_kinds_captures.rs). One chain of 4 timeouts backs off 376 →
  // 736 → 1472 → 3008 ms.
  const out = run('analyze', join(examples, 'bursts-outage.pcap')).stdout;
  assert.match(out, /retransmissions 38 \(5 timeouts, 1 tail loss probe, 21 fast \/ SACK recovery, 11 slow start after a timeout; 3 spurious\)/);
  assert.match(out, /timeout backoff: 4 at 21\.419 s \(376, 736, 1472, 3008 ms\)/);
});

test('the retransmission kinds name the two that are no loss recovery, so they sum to the count', () => {
  // docs/ANALYSIS.md "Retransmission kinds": timeouts + probes + fast + slow start + PMTU
  // re-sends + back-to-back copies = retransmissions. 5 = 1 fast + 2 PMTU + 2 back to back.
  const d = { retransmissions: 5, rtoEvents: 0, tailLossProbes: 0, fastRetransmissions: 1, slowStartRetransmissions: 0,
    pmtuRetransmissions: 2, backToBackDuplicates: 2, spuriousRetransmissions: 0 };
  assert.equal(retransmissionKinds(d),
    ' (1 fast / SACK recovery, 2 sent twice back to back, 2 re-sent smaller after an ICMP path MTU message)');
});

test('the text output gives the kernel\'s segment count where frames hold several (TSO)', () => {
  // tso-loss.pcap: 77 retransmitted frames of a TSO host hold 1254 segments; the
  // sender's kernel counted TcpRetransSegs 1254, TCPFastRetrans 1242, TCPSlowStartRetrans
  // 11 (wasm/tests/examples-truth/tso-loss.json). Where frames are segments, nothing more.
  const out = run('analyze', join(examples, 'tso-loss.pcap')).stdout;
  assert.match(out, /retransmissions 77 \(1 timeout, 72 fast \/ SACK recovery, 4 slow start after a timeout\); 1254 segments as the sender's kernel counts them \(1242 fast, 11 slow start\), /);
  assert.doesNotMatch(run('analyze', join(examples, 'bursts-outage.pcap')).stdout, /segments as the sender's kernel/);
});

test('the text output counts the datagrams a sender numbered but the capture never saw', () => {
  // rx-tail-loss.pcap: the server's IPv4 numbering skipped its lost FIN segment
  // (docs/ANALYSIS.md `direction.unseenDatagrams`), so the segment that looked new is its
  // re-send (`direction.retransmissions`): 1 retransmission, as the kernel counted.
  const out = run('analyze', join(examples, 'rx-tail-loss.pcap')).stdout;
  assert.match(out, /retransmissions 1[^\n]*lost segments 0, 1 datagram sent, not captured \(IPv4 numbering\)/);
  assert.doesNotMatch(run('analyze', join(examples, 'ipv6-bulk.pcap')).stdout, /not captured \(IPv4/);
});

test('the text output shows the handshake options and the capture loss note', () => {
  // rwnd-limited.pcap's handshake (docs/ANALYSIS.md "connection.handshake").
  const out = run('analyze', join(examples, 'rwnd-limited.pcap')).stdout;
  assert.match(out, /handshake: SYN mss 1460, wscale 10, SACK, timestamps; SYN\/ACK mss 1460, wscale 7, SACK, timestamps; window scaling negotiated/);
  // capture-loss.pcap: rx-bulk with 13 data segments dropped (wasm/tests/capture_loss_captures.rs).
  const lossy = run('analyze', join(examples, 'capture-loss.pcap')).stdout;
  assert.match(lossy, /note: The capture dropped packets: 13 holes in the captured data \(18 KiB, about 13 segments\)/);
  assert.match(run('analyze', join(examples, 'no-handshake.pcap')).stdout, /handshake: SYN not captured; SYN\/ACK not captured; window scaling not captured/);
});


test('the text says how each connection ended (docs/ANALYSIS.md "How the connection ended")', () => {
  const out = run('analyze', join(examples, 'healthy.pcap')).stdout;
  // tshark: the control connection closes with a FIN each way (2.112175 s, then
  // 2.122795 s); iperf3's data connection ends in 63 resets from port 5201, the first at
  // 2.086016 s, 705 µs after the client's last data (frame 10778 at 2.085311 s), with the client's last 89,776 bytes never acknowledged.
  assert.match(out, /\n {4}ended: FIN both - Closed by a FIN each way: 10\.77\.0\.1:38762 closed first at 2\.112 s, 10\.77\.0\.2:5201 11 ms later \(RFC 9293 §3\.6\)\.\n/);
  assert.match(out, /\n {4}ended: reset by server - The connection was reset by 10\.77\.0\.2:5201 at 2\.086 s, 705 µs after data from 10\.77\.0\.1:38778\. 88 KiB \(89,776 bytes\) of the data 10\.77\.0\.1:38778 sent were never acknowledged\.\n/);
});

test('the text names the process behind a connection, as the page does', async () => {
  const { formatHuman } = await import('../cli/format.mjs');
  const report = JSON.parse(run('analyze', join(examples, 'healthy.pcap'), '--json').stdout);
  const c = report.connections[0];
  assert.ok(!formatHuman('x', report).includes('(pid '), 'no process in a Linux capture');
  c.process = { name: 'Safari', pid: 512 }; // as PKTAP names it (wasm/tests/decode_links.rs)
  assert.match(formatHuman('x', report), new RegExp(`#${c.id} .* \\[Safari \\(pid 512\\)\\]`));
});

test('the text gives each MPTCP subflow the MPTCP connection\'s sentences (docs/ANALYSIS.md `mptcp[].text`)', () => {
  // mptcp-join-refused.pcap: the client wrote 1,000,000 bytes (977 KiB) over the initial
  // subflow and one joined subflow; the server refused the third join with MP_TCPRST
  // reason 3 (tshark: frame 13, "TCPRST Reason: Administratively prohibited (0x03)"). Every
  // subflow, the refused one too, carries the same line.
  const out = run('analyze', join(examples, 'mptcp-join-refused.pcap')).stdout;
  const line = '    mptcp #0: MPTCP connection of 3 subflows (connections 0, 1, 2): 977 KiB of data from 10.81.0.1:51244 to 10.81.0.2:5201 at 11 Mbit/s, on 2 of them. ' +
    'Subflow 2 did not join: it was reset before the join completed (MP_TCPRST reason 3: administratively prohibited).\n';
  assert.equal(out.split(line).length - 1, 3, out);
  // Plain TCP: no such line.
  assert.doesNotMatch(run('analyze', join(examples, 'healthy.pcap')).stdout, /mptcp #/);
});

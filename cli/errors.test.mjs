// How the CLI fails and helps (issue 42, item 3): one line naming what is wrong and
// where, then `try: tcpscope help COMMAND`; exit 2 for a wrong command line, 1 for a
// capture that cannot be read; `tcpscope help [COMMAND]` and `--help` print the usage;
// never a stack trace. Runs the real CLI (bin/tcpscope.mjs) as a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const stalls = join(root, 'public', 'examples', 'stalls.pcap');
const tmp = mkdtempSync(join(tmpdir(), 'tcpscope-errors-'));

function run(...args) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Exactly two lines on stderr: `tcpscope: …` matching `what`, then the help hint. */
function failsWith(r, code, what, command) {
  assert.equal(r.code, code, r.stderr);
  const lines = r.stderr.split('\n');
  assert.equal(lines.length, 3, `two lines and the final newline: ${JSON.stringify(r.stderr)}`);
  assert.match(lines[0], /^tcpscope: /);
  assert.match(lines[0], what);
  assert.equal(lines[1], `try: tcpscope help${command ? ` ${command}` : ''}`);
  assert.equal(lines[2], '');
  assert.equal(r.stdout, '', 'nothing on stdout');
}

test('usage errors: one line saying what is wrong, then the command\'s help; exit 2', () => {
  failsWith(run(), 2, /missing command \(commands: analyze, series, share, render, slice\)/, null);
  failsWith(run('frobnicate'), 2, /unknown command 'frobnicate'/, null);
  failsWith(run('analyze'), 2, /missing CAPTURE/, 'analyze');
  failsWith(run('analyze', stalls, '--colour'), 2, /unknown option '--colour'/, 'analyze');
  failsWith(run('analyze', stalls, '--stall-ms', 'soon'), 2, /--stall-ms needs a positive number of milliseconds, got 'soon'/, 'analyze');
  failsWith(run('analyze', stalls, '--jobs', '0'), 2, /--jobs needs a whole number of workers from 1 to 1024, got '0'/, 'analyze');
  failsWith(run('analyze', stalls, '--ndjson=xml'), 2, /--ndjson is compact or full, got 'xml'/, 'analyze');
  failsWith(run('analyze', stalls, '--json', '--ndjson'), 2, /say --json or --ndjson/, 'analyze');
  failsWith(run('analyze', join(root, 'public', 'examples'), '--json'), 2, /--json takes one capture/, 'analyze');
  failsWith(run('series', stalls, '--connection', '0', '--csv'), 2, /missing --series NAME/, 'series');
  failsWith(run('share', stalls), 2, /missing --connection N/, 'share');
  failsWith(run('share', tmp, '--connection', '0'), 2, /it is a directory/, 'share');
  failsWith(run('render', stalls), 2, /missing --out/, 'render');
  failsWith(run('help', 'nope'), 2, /no command 'nope' to help with/, null);
  // A name that could drive a terminal is written escaped, on its one line.
  failsWith(run('analyze', stalls, '--x\u001b]0;owned\u0007'), 2, /unknown option '--x\\x1b\]0;owned\\x07'/, 'analyze');
});

test('a capture that cannot be read: one line naming it, then the help; exit 1', () => {
  failsWith(run('analyze', join(tmp, 'missing.pcap')), 1, /cannot open '.*missing\.pcap': no such file/, 'analyze');
  const cut = join(tmp, 'cut.pcap.gz');
  writeFileSync(cut, gzipSync(readFileSync(stalls)).subarray(0, 1000));
  failsWith(run('analyze', cut, '--json'), 1, /cannot read '.*cut\.pcap\.gz': damaged gzip data/, 'analyze');
  failsWith(run('series', join(tmp, 'missing.pcap'), '--connection', '0', '--series', 'throughput', '--csv'), 1, /cannot open .*: no such file/, 'series');
  failsWith(run('share', join(tmp, 'missing.pcap'), '--connection', '0'), 1, /cannot open .*: no such file/, 'share');
});

test('tcpscope help [COMMAND], --help and COMMAND --help print the usage on stdout, exit 0', () => {
  const all = run('help');
  assert.equal(all.code, 0);
  assert.equal(all.stderr, '');
  for (const command of ['analyze', 'series', 'share', 'render']) {
    assert.match(all.stdout, new RegExp(`^usage: tcpscope ${command} `, 'm'));
    const one = run('help', command);
    assert.equal(one.code, 0);
    assert.match(one.stdout, new RegExp(`^usage: tcpscope ${command} `));
    assert.equal(one.stdout.match(/^usage: /gm).length, 1, 'only that command');
    assert.equal(run(command, '--help').stdout, one.stdout, `${command} --help`);
    assert.equal(run(command, stalls, '-h').stdout, one.stdout, `${command} ... -h`);
  }
  assert.equal(run('--help').stdout, all.stdout);
  assert.match(run('help', 'analyze').stdout, /--ndjson=full/);
  assert.match(run('help', 'analyze').stdout, /--jobs N/);
});

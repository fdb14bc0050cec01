// docs/FLEET.md's DuckDB queries over the CLI's NDJSON (issues 16 and 43): every ```sql
// block of the document runs, in order, on the compact rows of the example captures, and
// the answers the document states under "Examples:" are checked; every compact row of
// every example is at most 600 bytes. DuckDB is the npm @duckdb/node-api (a
// devDependency: its engine ships inside the registry package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const examples = join(root, 'public', 'examples');
const duckdb = await import('@duckdb/node-api').catch(() => null);

/** The ```sql blocks of FLEET.md, each with the heading it stands under. */
function sqlBlocks() {
  const doc = readFileSync(join(root, 'docs', 'FLEET.md'), 'utf8');
  const blocks = [];
  let heading = '';
  for (const [, title, sql] of doc.matchAll(/^### (.+)$|^```sql\n([\s\S]*?)^```$/gm)) {
    if (title) heading = title;
    else blocks.push({ heading, sql });
  }
  return blocks;
}

// The directory form, run inside it, so `file` is the capture's own name: compact rows
// (the default for a directory).
const ndjson = execFileSync(process.execPath, [...NODE_ARGS, join(root, 'bin', 'tcpscope.mjs'), 'analyze', '.'], { cwd: examples, maxBuffer: 1 << 28 }).toString();

test('a compact connection row is at most 600 bytes, on every example capture', () => {
  const lines = ndjson.trimEnd().split('\n');
  const captures = new Set(lines.map((l) => JSON.parse(l)).filter((r) => r.record === 'capture').map((r) => r.file));
  const names = readdirSync(examples).filter((n) => /\.(pcap|pcapng)$/.test(n));
  assert.deepEqual([...captures].sort(), names.sort(), 'every example has its capture line');
  const rows = lines.filter((l) => l.startsWith('{"record":"connection"'));
  assert.ok(rows.length >= 50, `${rows.length} connection rows`);
  for (const line of rows) {
    const bytes = Buffer.byteLength(line) + 1; // with its newline
    assert.ok(bytes <= 600, `${bytes} bytes: ${line}`);
  }
  // The compact row's fields (docs/FLEET.md "The compact row"), and nothing of the full row.
  assert.deepEqual(Object.keys(JSON.parse(rows[0])), ['record', 'file', 'id', 'from', 'to', 'vantage', 'start', 'duration',
    'dataBytes', 'reverseBytes', 'meanBps', 'activeBps', 'peakBps', 'rttMs', 'retrans', 'zeroWindows', 'stalls', 'limit', 'process']);
});

test('FLEET.md queries run in DuckDB on the examples\' compact rows and give the stated answers', { skip: !duckdb && '@duckdb/node-api is not installed (npm ci)' }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tcpscope-fleet-'));
  writeFileSync(join(tmp, 'fleet.ndjson'), ndjson);

  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const answers = {};
  const blocks = sqlBlocks();
  assert.ok(blocks.length >= 7, 'FLEET.md has its queries');
  for (const { heading, sql } of blocks) {
    const local = sql.replaceAll("'fleet.ndjson'", `'${join(tmp, 'fleet.ndjson')}'`).replaceAll("'fleet.parquet'", `'${join(tmp, 'fleet.parquet')}'`);
    // One statement at a time; a block's answer is its last statement's rows.
    for (const statement of local.split(/;\s*$/m).filter((s) => s.trim())) {
      const reader = await db.runAndReadAll(statement);
      answers[heading] = reader.getRowObjectsJson();
    }
  }

  // rwnd-limited.pcap is recorded against a receiver capped at 64 KiB of buffer; the
  // receiver-side recordings rx-bulk.pcap (and its copies) have the same receiver.
  const rwnd = answers['Receive-window-limited connections, by receiving host'];
  assert.deepEqual(rwnd.map((r) => r.receiver_host), ['10.77.0.2'], 'one receiving host');
  assert.ok(Number(rwnd[0].connections) >= 2 && Number(rwnd[0].captures) >= 2, JSON.stringify(rwnd));
  // bursts-outage.pcap: a sender idle between its bursts, 16 times (28.64 s in all);
  // rx-zero-window-dead.pcap: the receiving program stops reading for good (README),
  // one stall of 24.87931 s, to the ms.
  const [first, second] = answers['The longest stall time per connection and cause'];
  assert.deepEqual([first.file, first.cause, Number(first.stalls), Number(first.seconds)], ['bursts-outage.pcap', 'application-idle', 16, 28.64]);
  assert.deepEqual([second.file, second.cause, Number(second.stalls), Number(second.seconds)], ['rx-zero-window-dead.pcap', 'zero-window', 1, 24.879]);
  const causes = answers['Stall time by cause, fleet-wide'];
  assert.ok(causes.some((r) => r.cause === 'zero-window'), JSON.stringify(causes));
  // The Parquet copy holds every connection line.
  const lines = ndjson.trimEnd().split('\n').filter((l) => l.startsWith('{"record":"connection"'));
  assert.equal(Number(answers['Keep it as Parquet'][0].connections), lines.length);
  const limits = answers['What limits the fleet'];
  assert.equal(limits.reduce((n, r) => n + Number(r.connections), 0), lines.length, 'every connection has a limit');
});

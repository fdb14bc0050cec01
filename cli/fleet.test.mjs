// docs/FLEET.md's DuckDB queries over the CLI's NDJSON (issue 16): every ```sql block of
// the document runs, in order, on the rows of the example captures, and the answers the
// document states under "Examples:" are checked. DuckDB is the npm @duckdb/node-api
// (a devDependency: its engine ships inside the registry package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

test('FLEET.md queries run in DuckDB on the examples\' NDJSON and give the stated answers', { skip: !duckdb && '@duckdb/node-api is not installed (npm ci)' }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tcpscope-fleet-'));
  // The directory form, run inside it, so `file` is the capture's own name.
  const ndjson = execFileSync(process.execPath, [join(root, 'bin', 'tcpscope.mjs'), 'analyze', '.'], { cwd: examples, maxBuffer: 1 << 28 });
  writeFileSync(join(tmp, 'fleet.ndjson'), ndjson);

  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const answers = {};
  const blocks = sqlBlocks();
  assert.ok(blocks.length >= 6, 'FLEET.md has its queries');
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
  // rx-zero-window-dead.pcap: the receiving program stops reading for good (README).
  const [longest] = answers['The longest stalls anywhere, with their cause'];
  assert.equal(longest.file, 'rx-zero-window-dead.pcap');
  assert.equal(longest.cause, 'zero-window');
  // The Parquet copy holds every connection line.
  const lines = ndjson.toString().trimEnd().split('\n').filter((l) => l.startsWith('{"record":"connection"'));
  assert.equal(Number(answers['Keep it as Parquet'][0].connections), lines.length);
  const limits = answers['What limits the fleet'];
  assert.equal(limits.reduce((n, r) => n + Number(r.connections), 0), lines.length, 'every connection has a limit');
});

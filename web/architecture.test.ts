// docs/ARCHITECTURE.md is a map: every file or folder it names in backticks must exist,
// or a newcomer following a recipe is sent nowhere (issue 40 item 5). A name with a
// placeholder (`<your_cause>.rs`) is a file to create and is skipped; a bare file name
// (`conn.rs`) must exist somewhere in the tree; `Type::method` pointers to Rust are
// checked by wasm/tests/doc_paths.rs for docs/ANALYSIS.md.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const doc = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8');

function allFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (['node_modules', 'target', '.git', 'dist', 'pkg', 'build', 'test-results'].includes(name) || name.startsWith('target-')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) allFiles(p, out);
    else out.push(p.slice(root.length));
  }
  return out;
}

describe('docs/ARCHITECTURE.md', () => {
  it('names only files and folders that exist', () => {
    const files = allFiles(root);
    const named = [...doc.matchAll(/`([^`\s]+)`/g)].map((m) => m[1])
      .filter((t) => /\.(rs|ts|tsx|mjs|md)$|\/$/.test(t) && !t.includes('<'));
    expect(named.length).toBeGreaterThan(40);
    const missing = named.filter((t) => {
      if (existsSync(join(root, t))) return false;
      // A folder named from its parent (`analysis/loss/` in the wasm/src table).
      if (t.endsWith('/')) return !files.some((f) => f.startsWith(t) || f.includes(`/${t}`));
      return !files.some((f) => f.endsWith(`/${t}`) || f === t);
    });
    expect(missing).toEqual([]);
  });
});

// The one vocabulary (issue 40, item 1): every closed set that crosses the boundary —
// stall causes, limits, episode kinds, verdicts, vantages, warning kinds,
// retransmission kinds, chart ids, series (and the CLI's names of them), flag bits,
// column names — is written once, in wasm/src/boundary, and generated into
// web/worker/generated/vocabulary.ts and cli/vocabulary.generated.mjs
// (wasm/src/boundary/typescript.rs fails when either is stale).
//
// This test fails when a consumer keeps its own copy of a set instead: a hand-written
// enumeration — an array, an object's keys or values, a union type, a switch's cases,
// an && / || chain of comparisons — that names two or more values of one set. The
// values are read from the generated file, not listed here. A single value named where
// it is used (`e.kind === 'latency'`, `byKind('capture-loss')`) is no copy: in
// TypeScript it is checked against the generated union by tsc, so it cannot drift.
// Tests, fixtures of tests and the generated files themselves are not consumers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as V from './worker/generated/vocabulary';

const ROOT = join(__dirname, '..');

/** Every closed set, by name, from the generated file. */
const SETS: Record<string, readonly string[]> = {
  'stall cause': V.STALL_CAUSES,
  limit: V.LIMITS,
  'episode kind': V.EPISODE_KINDS,
  verdict: V.VERDICTS,
  vantage: V.VANTAGES,
  'warning kind': V.WARNING_KINDS,
  'retransmission kind': V.RETRANSMISSION_KINDS.map((k) => k.kind),
  'chart id': V.CHART_IDS,
  series: V.SERIES,
  'CLI series name': Object.keys(V.CLI_SERIES),
  'flag bit': Object.keys(V.FLAG),
  column: Object.keys(V.COLUMNS),
  place: V.PLACES,
  'matched by': V.MATCHED_BY,
};

/** Data made up for tests (not read by the page). */
const TEST_SUPPORT = ['testUtil.tsx', 'fixtures.ts'];

/** Production sources of the page, the embed, the compare view, the renderer and the CLI. */
function consumers(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'generated') walk(path);
      } else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !TEST_SUPPORT.includes(name)) {
        out.push(path);
      }
    }
  };
  walk(join(ROOT, 'web'));
  for (const name of readdirSync(join(ROOT, 'cli'))) {
    if (name.endsWith('.mjs') && !name.endsWith('.test.mjs') && !name.endsWith('.generated.mjs')) out.push(join(ROOT, 'cli', name));
  }
  return out;
}

/** How a hand-written enumeration names values: `words` counts every name; `compound`
 *  only names with a hyphen or a dot (`ack-wait`, `packets.t`), which mean nothing
 *  else; `flags` only the flag bits' names. */
type Reach = 'words' | 'compound' | 'flags';

/** Every enumeration in one source file: its line, the names it holds, its reach.
 *  - A word table: an array of string literals, or an object whose values are all
 *    string literals (its keys and its values) — every name counts (`words`).
 *  - A union type, a switch's cases, an && / || chain of comparisons, an object's
 *    quoted keys — only compound names count: `'stalls'` there is as likely a field.
 *  - An object's keys, whatever its values — only flag names (`SYN`, `KIND_RTO`). */
function enumerations(path: string, text: string): { line: number; names: string[]; reach: Reach }[] {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : path.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const found: { line: number; names: string[]; reach: Reach }[] = [];
  const literal = (n: ts.Node | undefined): string | null =>
    n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : null;
  const key = (p: ts.ObjectLiteralElementLike): string | null =>
    (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : null;
  const add = (node: ts.Node, names: (string | null)[], reach: Reach) => {
    const kept = names.filter((s): s is string => s != null);
    if (kept.length >= 2) found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, names: kept, reach });
  };
  const isChain = (n: ts.Node) => ts.isBinaryExpression(n) &&
    [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken].includes(n.operatorToken.kind);
  /** The literals compared (===, !==, ==, !=) anywhere in an && / || chain. */
  const compared = (n: ts.Node, out: (string | null)[]) => {
    if (isChain(n)) {
      compared((n as ts.BinaryExpression).left, out);
      compared((n as ts.BinaryExpression).right, out);
    } else if (ts.isParenthesizedExpression(n)) compared(n.expression, out);
    else if (ts.isBinaryExpression(n) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken,
      ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(n.operatorToken.kind)) {
      out.push(literal(n.left), literal(n.right));
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isArrayLiteralExpression(node)) add(node, node.elements.map(literal), 'words');
    else if (ts.isObjectLiteralExpression(node)) {
      const props = node.properties;
      const values = props.map((p) => (ts.isPropertyAssignment(p) ? literal(p.initializer) : null));
      if (props.length > 0 && values.every((v) => v != null)) {
        add(node, props.map(key), 'words');
        add(node, values, 'words');
      } else {
        add(node, props.map((p) => (ts.isPropertyAssignment(p) && ts.isStringLiteral(p.name) ? p.name.text : null)), 'compound');
      }
      add(node, props.map(key), 'flags');
    } else if (ts.isUnionTypeNode(node)) {
      add(node, node.types.map((t) => (ts.isLiteralTypeNode(t) ? literal(t.literal) : null)), 'compound');
    } else if (ts.isSwitchStatement(node)) {
      add(node, node.caseBlock.clauses.map((c) => (ts.isCaseClause(c) ? literal(c.expression) : null)), 'compound');
    } else if (isChain(node) && !isChain(node.parent) && !ts.isParenthesizedExpression(node.parent)) {
      const out: (string | null)[] = [];
      compared(node, out);
      add(node, out, 'compound');
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const FLAG_SET = 'flag bit';
const counts = (reach: Reach, set: string, name: string) =>
  reach === 'flags' ? set === FLAG_SET : set !== FLAG_SET && (reach === 'words' || /[-.]/.test(name));

/** `file:line: the <set> a, b` for every enumeration naming two or more values of one set. */
function copies(path: string, text: string): string[] {
  const out: string[] = [];
  for (const { line, names, reach } of enumerations(path, text)) {
    for (const [set, values] of Object.entries(SETS)) {
      const hits = [...new Set(names.filter((n) => values.includes(n) && counts(reach, set, n)))];
      if (hits.length >= 2) out.push(`${relative(ROOT, path)}:${line}: a copy of the ${set} set: ${hits.join(', ')}`);
    }
  }
  return [...new Set(out)];
}

describe('the one vocabulary', () => {
  it('the CLI reads the same tables as the page', async () => {
    const js: unknown = await import(/* @vite-ignore */ pathToFileURL(join(ROOT, 'cli/vocabulary.generated.mjs')).href);
    expect(JSON.parse(JSON.stringify({ ...(js as object) }))).toEqual(JSON.parse(JSON.stringify({ ...V })));
  });

  it('the detector finds each kind of hand-written copy', () => {
    const src = [
      "const a = ['ack-wait', 'zero-window'];",
      "const b = { throughput: 'x', rtt: 'y' };",
      "type C = 'too-short' | 'one-direction';",
      "switch (k) { case 'not-ip': break; case 'not-tcp': break; }",
      "if (l !== 'too-short' && (l !== 'one-direction')) {}",
      "const f = { SYN: 2, ACK: 16 };",
      "const ok = s === 'ack-wait' ? ['ack-wait'] : [];",
      "const fields = { throughput: t, rtt: r }; type F = Omit<D, 'throughput' | 'rtt'>;",
      "const titles = { sender: 'At the sender', receiver: 'At the receiver' };",
    ].join('\n');
    expect(copies(join(ROOT, 'web/x.ts'), src)).toEqual([
      'web/x.ts:1: a copy of the stall cause set: ack-wait, zero-window',
      'web/x.ts:2: a copy of the chart id set: throughput, rtt',
      'web/x.ts:2: a copy of the series set: throughput, rtt',
      'web/x.ts:2: a copy of the CLI series name set: throughput, rtt',
      'web/x.ts:3: a copy of the limit set: too-short, one-direction',
      'web/x.ts:4: a copy of the warning kind set: not-ip, not-tcp',
      'web/x.ts:5: a copy of the limit set: too-short, one-direction',
      'web/x.ts:6: a copy of the flag bit set: SYN, ACK',
      'web/x.ts:9: a copy of the vantage set: sender, receiver',
    ]);
  });

  it('no consumer keeps its own copy of a closed set', () => {
    const found = consumers().flatMap((path) => copies(path, readFileSync(path, 'utf8')));
    expect(found).toEqual([]);
  });
});

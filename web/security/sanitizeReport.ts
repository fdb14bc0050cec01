// Where text from outside enters the page (issue 45, item 1): the report, summaries and
// table rows the worker sends, built from a capture's fields (process names) or a link's
// (anything: a link is text anyone can edit). Every string a user reads is passed through
// the one sanitizer here, once, so no component has to remember it: controls and bidi
// characters escaped visibly, lengths capped. Components still isolate names (<bdi>).
// The sanitizer is idempotent (its output holds nothing it would change), so text that
// passes twice reads the same.

import type { ConnectionSummary, Report } from '../model/types';
import type { TablePage, WarningKind } from '../worker/generated/view';
import type { SnapshotInfo } from '../worker/protocol';
import { escapeUnsafe, outsideText } from './outsideText';

/** Caps (code points): a name or an endpoint is one line; a sentence a paragraph. */
export const NAME_CHARS = 120;
export const PROCESS_CHARS = 60;
export const SENTENCE_CHARS = 2000;

const sentence = (text: unknown) => outsideText(text, SENTENCE_CHARS);
const name = (text: unknown) => outsideText(text, NAME_CHARS);

export function sanitizeSummary(s: ConnectionSummary): ConnectionSummary {
  const out: ConnectionSummary = { ...s };
  if (Array.isArray(s.endpoints)) out.endpoints = [name(s.endpoints[0]), name(s.endpoints[1])];
  if (s.process) out.process = { ...s.process, name: outsideText(s.process.name, PROCESS_CHARS) };
  if (Array.isArray(s.directions)) {
    out.directions = s.directions.map((d) => ({
      ...d, from: name(d.from), to: name(d.to),
      stalls: Array.isArray(d.stalls) ? d.stalls.map((st) => ({ ...st, endedBy: name(st.endedBy) })) : d.stalls,
    })) as ConnectionSummary['directions'];
  }
  // Fields of the current schema that older snapshots lack (model/types.ts Legacy*).
  const loose = out as unknown as { pathRttMethod?: unknown; diagnosis?: { text: unknown; episodes?: unknown } };
  if (typeof loose.pathRttMethod === 'string') loose.pathRttMethod = name(loose.pathRttMethod);
  if (loose.diagnosis) {
    const d = loose.diagnosis;
    loose.diagnosis = {
      ...d, text: sentence(d.text),
      ...(Array.isArray(d.episodes) ? { episodes: d.episodes.map((e: { text: unknown }) => ({ ...e, text: sentence(e.text) })) } : {}),
    };
  }
  return out;
}

/** Lists that may be missing from a partial report (a test's, an older worker's) stay as they are. */
const each = <T,>(list: T[], f: (x: T) => T): T[] => (Array.isArray(list) ? list.map(f) : list);

export function sanitizeReport(r: Report): Report {
  return {
    ...r,
    capture: r.capture && { ...r.capture, linkTypes: each(r.capture.linkTypes, name) },
    error: r.error ? { ...r.error, message: sentence(r.error.message) } : r.error,
    // A link's kind may be any string (nothing here trusts it to be a WarningKind): the page
    // only compares kinds, so an unknown one is told as a plain warning.
    warnings: each(r.warnings, (w) => ({ ...w, kind: name(w.kind) as WarningKind, message: sentence(w.message) })),
    connections: each(r.connections, sanitizeSummary),
    // MPTCP sentences (analysis/track/mptcp/in_words.rs `text`) name endpoints, as the diagnosis does.
    ...(Array.isArray(r.mptcp) ? { mptcp: r.mptcp.map((m) => ({ ...m, text: sentence(m.text) })) } : {}),
  };
}

export function sanitizeSnapshotInfo(info: SnapshotInfo | undefined): SnapshotInfo | undefined {
  // The view is a fragment the page parses (and validates) again; only the name is shown.
  return info && { ...info, name: name(info.name) };
}

export function sanitizeTablePage(page: TablePage): TablePage {
  return { ...page, rows: each(page.rows, (row) => ({ ...row, from: name(row.from), to: name(row.to), limit: name(row.limit) })) };
}

/** A file name (a dropped file, the last part of a #url= address, a #compare-file= name). */
export const fileName = (text: unknown) => name(text);
export { escapeUnsafe };

// The one sanitizer for text that came from outside (issue 45, item 1): capture fields
// (a pcapng process name, an interface name), link fields (a snapshot's name, a
// #compare-file= name) and file names. Used by the CLI's every output (terminal, CSV,
// NDJSON) and by the page (web/security/outsideText.ts re-exports it; the SVG/PNG export
// and the static renderer draw the page's own text), so a name reads the same everywhere.
//
// - Control characters (C0, DEL, C1: ECMA-48 §5, the codes a terminal acts on: ESC starts
//   CSI/OSC sequences, BEL, CR and BS overwrite, LF forges a line) are written visibly as
//   \xNN (\n, \r, \t by name); they are invalid in XML 1.0 too (§2.2), so an SVG holding
//   one is refused by browsers.
// - Bidi controls (UAX #9 §2: LRE RLE PDF LRO RLO LRI RLI FSI PDI, LRM RLM ALM) and the
//   other invisible format characters that can hide or reorder text (zero-width space and
//   joiners, BOM, line and paragraph separators U+2028/2029, U+FFFE/FFFF) are written as
//   \u{XXXX}: a right-to-left override cannot turn "…gnp.exe" into "exe.png". Strong RTL
//   letters (Hebrew, Arabic) are kept; the page isolates the name (<bdi>, or FSI…PDI in
//   plain-text places: `isolated`) so they cannot reorder the sentence around it.
// - Lone UTF-16 surrogates (not text; ill-formed in XML and UTF-8) become U+FFFD.
// - Length is capped in code points (escapes count as what they print), ending with "…".

/** Longest name shown by default, in code points (a process name, a file name). */
export const MAX_NAME_CHARS = 120;

const NAMED = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const ELLIPSIS = '…';
/** U+2068 FIRST STRONG ISOLATE … U+2069 POP DIRECTIONAL ISOLATE (UAX #9 §2.7). */
const FSI = '\u2068';
const PDI = '\u2069';

/** Characters written as an escape: C0, DEL, C1; bidi controls; invisible format
 *  characters (zero-width, joiners, word joiner and the invisible operators, variation
 *  selectors, BOM, interlinear annotation, Hangul fillers); noncharacters; lone surrogates.
 *  No `u` flag: lone surrogates are only visible to a UTF-16 regex. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** One unsafe character, as it is written instead. */
function escapeOne(ch) {
  const code = ch.charCodeAt(0);
  if (code >= 0xd800 && code <= 0xdfff) return '\ufffd';
  if (NAMED[ch]) return NAMED[ch];
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return `\\u{${code.toString(16).toUpperCase().padStart(4, '0')}}`;
}

/** Whether `text` holds anything `outsideText` would escape. */
export function hasUnsafeChars(text) {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(String(text));
  UNSAFE.lastIndex = 0;
  return found;
}

/** `text` with every unsafe character escaped visibly; no length cap (a line the CLI prints). */
export function escapeUnsafe(text) {
  return String(text).replace(UNSAFE, escapeOne);
}

/**
 * Text from outside, safe to print anywhere: controls and bidi/invisible characters
 * escaped visibly, at most `max` code points as printed (the last being "…" when cut;
 * an escape is never cut in half). A value that is not a string (a hostile link's
 * object) becomes '' rather than "[object Object]".
 */
export function outsideText(text, max = MAX_NAME_CHARS) {
  if (typeof text !== 'string') text = typeof text === 'number' || typeof text === 'bigint' ? String(text) : '';
  const limit = Math.max(1, Math.floor(max));
  // Each input code point prints as at least one, so a 1 MB name is cut before it is escaped.
  const input = text.length > limit * 2 + 2 ? text.slice(0, limit * 2 + 2) : text;
  let out = '';
  let used = 0;
  const tokens = input.match(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g) ?? [];
  for (let i = 0; i < tokens.length; i++) {
    const piece = escapeUnsafe(tokens[i]);
    const size = Array.from(piece).length;
    // Room for this piece, and for "…" unless it is the very last.
    const last = i === tokens.length - 1 && input.length === text.length;
    if (used + size > limit - (last ? 0 : 1)) {
      return `${out}${ELLIPSIS}`;
    }
    out += piece;
    used += size;
  }
  return out;
}

/** `text` sanitized, and wrapped in FSI…PDI when it holds anything but printable ASCII
 *  (letters that could be right-to-left), for plain-text places (an SVG <text>, a title
 *  attribute, a sentence) where a <bdi> element cannot isolate it. */
export function isolated(text, max = MAX_NAME_CHARS) {
  const safe = outsideText(text, max);
  return /^[\x20-\x7e]*$/.test(safe) ? safe : `${FSI}${safe}${PDI}`;
}

/** JSON text with the characters JSON leaves raw but a terminal or a viewer acts on (DEL,
 *  C1, bidi and invisible format characters, U+2028/2029) written as \uXXXX escapes: the
 *  same JSON value, printable on a terminal. C0 controls are already escaped by every
 *  JSON writer (RFC 8259 §7). */
export function jsonSafe(json) {
  // \t \n \r outside strings are the writer's own whitespace (pretty-printed JSON).
  return json.replace(UNSAFE, (ch) => (NAMED[ch] ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

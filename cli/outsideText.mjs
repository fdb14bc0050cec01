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
  const t = String(text);
  for (let i = 0; i < t.length; i++) if (unsafeAt(t, i)) return true;
  return false;
}

/** `text` with every unsafe character escaped visibly; no length cap (a line the CLI prints). */
export function escapeUnsafe(text) {
  const t = String(text);
  let out = '';
  let from = 0;
  for (let i = 0; i < t.length; i++) {
    if (!unsafeAt(t, i)) continue;
    out += t.slice(from, i) + escapeOne(t[i]);
    from = i + 1;
  }
  return from === 0 ? t : out + t.slice(from);
}

/** Whether the unit at `i` is escaped: an unsafe character, or half of no surrogate pair. */
function unsafeAt(t, i) {
  const c = t.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) return !(i + 1 < t.length && (t.charCodeAt(i + 1) & 0xfc00) === 0xdc00);
  if (c >= 0xdc00 && c <= 0xdfff) return !(i > 0 && (t.charCodeAt(i - 1) & 0xfc00) === 0xd800);
  return unsafe(c);
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
  const cutInput = input.length < text.length;
  let out = '';
  let used = 0;
  for (let i = 0; i < input.length;) {
    const code = input.charCodeAt(i);
    let piece;
    let step = 1;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < input.length && (input.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      piece = input.slice(i, i + 2);
      step = 2;
    } else piece = unsafeAt(input, i) ? escapeOne(input[i]) : input[i];
    // Escapes are ASCII and a surrogate pair is one code point: the printed size.
    const size = step === 2 ? 1 : piece.length;
    const last = i + step >= input.length && !cutInput;
    // Room for this piece, and for "…" unless it is the very last.
    if (used + size > limit - (last ? 0 : 1)) return `${out}${ELLIPSIS}`;
    out += piece;
    used += size;
    i += step;
  }
  return out;
}

/** Characters written as an escape: C0, DEL, C1; bidi controls; invisible format
 *  characters (zero-width, joiners, word joiner and the invisible operators, variation
 *  selectors, BOM, interlinear annotation, Hangul fillers); noncharacters; surrogates
 *  (a pair is kept by `unsafeAt`, a lone one is not text). */
function unsafe(c) {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x61c || c === 0x115f || c === 0x1160 || c === 0x180e
    || (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c === 0x3164
    || (c >= 0xfe00 && c <= 0xfe0f) || c === 0xfeff || (c >= 0xfff9 && c <= 0xfffb) || c === 0xfffe || c === 0xffff
    || (c >= 0xd800 && c <= 0xdfff);
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
  let out = '';
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x09 || c === 0x0a || c === 0x0d || !unsafeAt(json, i)) continue;
    out += `${json.slice(from, i)}\\u${c.toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  return from === 0 ? json : out + json.slice(from);
}

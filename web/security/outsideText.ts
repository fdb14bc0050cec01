// The page's side of the one sanitizer for text from outside (issue 45, item 1): the
// same module as the CLI's (cli/outsideText.mjs, plain JS so Node runs it unbuilt), so a
// process name or a link's name reads the same in the terminal, the CSV, the page and an
// exported SVG/PNG. Names are shown inside <bdi> (React) or between FSI…PDI (`isolated`,
// for SVG text and sentences), so right-to-left letters cannot reorder the page's text.
export { escapeUnsafe, hasUnsafeChars, isolated, MAX_NAME_CHARS, outsideText } from '../../cli/outsideText.mjs';

// Dropping example captures on the page as a person would (a DataTransfer of Files),
// for the compare and the two-vantage-point specs.
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { examples } from './cli';

/** A DataTransfer holding these example captures, as a drop would carry them. */
export function dropped(page: Page, names: string[]) {
  const files = names.map((name) => ({ name, b64: readFileSync(`${examples}${name}`).toString('base64') }));
  return page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
    return dt;
  }, files);
}

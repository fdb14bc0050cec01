// Types of cli/outsideText.mjs, for the page (web/security/outsideText.ts).
export const MAX_NAME_CHARS: number;
export function hasUnsafeChars(text: string): boolean;
export function escapeUnsafe(text: string): string;
export function outsideText(text: unknown, max?: number): string;
export function isolated(text: unknown, max?: number): string;
export function jsonSafe(json: string): string;

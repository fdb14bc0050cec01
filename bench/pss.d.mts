export function findProcess(text: string): string | null;
export function treePss(root: string | number | null, options?: { includeRoot?: boolean }): number | null;

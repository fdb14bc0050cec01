export function findProcess(text: string): string | null;
export function treePss(root: string | number | null, options?: { includeRoot?: boolean }): number | null;
export function treeCpuMs(root: string | number | null): number | null;

// The charts of the connection stack, in their order (keys 1–7, `#charts=`, the CLI's
// `render --chart`): one list for the page, the address and the renderer.

// New charts go last so that the keys of the others stay. 'wifi' (PHY rate and 802.11
// retries) is drawn only for captures with radio headers (radiotap, PPI).
export const CHART_IDS = ['throughput', 'inflight', 'stalls', 'sequence', 'rtt', 'events', 'wifi'] as const;
export type ChartId = (typeof CHART_IDS)[number];

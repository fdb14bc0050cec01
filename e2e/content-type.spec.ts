// Captures are served with their registered Content-Type (issue 16 item 6), by the
// preview server the e2e tests run against (vite.config.ts; `vite dev` uses the same
// middleware and public/_headers says the same to static hosts).
import { expect, test } from '@playwright/test';

for (const path of ['/examples/healthy.pcap', '/examples/pcapng-zero-window.pcapng']) {
  test(`${path} is served as application/vnd.tcpdump.pcap`, async ({ request }) => {
    const response = await request.get(path);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/vnd.tcpdump.pcap');
  });
}

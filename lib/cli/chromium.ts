/**
 * How every headless Chromium of this repository starts (the browser specs, bench:ui): no
 * sandbox (containers), no GPU, and nothing that phones home or updates itself mid-measurement.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

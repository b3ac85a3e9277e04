// What both browser tests launch: Debian's chromium (or $CHROMIUM), with
// the flags this machine's closed network needs (without the background
// networking ones, chromium's connections are refused many at a time).

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

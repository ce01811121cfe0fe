// The `judge` command in a process of its own that reports its peak resident memory on exit
// (stderr, last line: `peak-rss-bytes N`). Used by bench/har.bench.ts; run as
// `node --import tsx bench/judge-peak.ts FILE...`.
process.on('exit', () => {
  process.stderr.write(`peak-rss-bytes ${process.resourceUsage().maxRSS * 1024}\n`);
});
process.argv.splice(2, 0, 'judge');
await import('../cli/main.ts');

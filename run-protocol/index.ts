// The protocol between a run of the suite (its workers and the command that starts it) and the
// reporters that read it: what a case leaves on its test (attachments, annotations), which
// levels fail a case, and the files a run leaves. It is a module of its own, not part of
// `contract/` (which knows nothing of Playwright or of runs) and not part of `suites/` or
// `reports/`: both sides import it, so neither reaches into the other.
//
// One file per job; this one only gathers them, so a caller imports the protocol from one place. The
// reporters' options (`reporter-options.ts`) and the run's inputs (`run-inputs.ts`) are imported from
// their own files: a worker, which imports this, needs neither.
export * from './levels.ts';
export * from './case-attachments.ts';
export * from './annotations.ts';
export * from './case-judgement.ts';
export * from './result-changing-reporters.ts';
export * from './waivers.ts';
export * from './run-description.ts';
export * from './generation.ts';
export * from './report-files.ts';

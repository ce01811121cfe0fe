// A Playwright reporter listed first in the configuration: it replaces every token in the test
// results (errors, steps, attachments, annotations, output) before the reporters after it (HTML,
// JUnit, blob, conformance) read them. Playwright puts request headers into the call log of a
// failed API call, so without it a token could reach a report through a step error.
//
// It changes only what people read. The outcome attachment (catalogue ids and levels, nothing
// else) is left as the case wrote it, and JSON attachments keep their keys: a token that is one
// letter or a common word would otherwise rewrite the data the outcome is decided from.
//
// It changes results because it must: the HTML, JUnit and blob reporters write steps, errors and
// attachments as they find them, and no option of theirs leaves a token out. If it throws, the
// error names it and the run ends without a verdict (reports/reporter-failure.ts); a configuration
// that leaves it out, or lists it after a reporter that reads results, gets no verdict either.
import { readFileSync, writeFileSync } from 'node:fs';
import type { FullResult, Reporter, TestCase, TestError, TestResult, TestStep } from '@playwright/test/reporter';
import { CASE_FINDINGS_ATTACHMENT, CASE_OUTCOME_ATTACHMENT, SECRET_SCRUBBER } from '../run-protocol/index.ts';
import type { SecretScrubberOptions } from '../run-protocol/reporter-options.ts';
import { scrubber, scrubDeep, scrubValues, type Scrub } from '../run-protocol/secrets.ts';
import { namingFailures } from './reporter-failure.ts';

type Attachment = TestResult['attachments'][number];

const TEXTUAL = /^(text\/|application\/(json|xml|.*\+json|.*\+xml))/;
const JSON_TYPE = /^application\/(json|.*\+json)/;

/**
 * JSON stays JSON (the case report also keeps its keys, which the kit fixed); anything else is
 * scrubbed as text.
 */
export function scrubText(text: string, contentType: string, scrub: Scrub, keepKeys = false): string {
  if (JSON_TYPE.test(contentType)) {
    try {
      const value = JSON.parse(text) as unknown;
      return JSON.stringify(keepKeys ? scrubValues(value, scrub) : scrubDeep(value, scrub));
    } catch {
      // Not JSON after all: scrubbed as text below.
    }
  }
  return scrub(text);
}

export function scrubError(error: TestError | undefined, scrub: Scrub): void {
  if (!error) return;
  if (error.message !== undefined) error.message = scrub(error.message);
  if (error.stack !== undefined) error.stack = scrub(error.stack);
  if (error.value !== undefined) error.value = scrub(error.value);
  if (error.snippet !== undefined) error.snippet = scrub(error.snippet);
  scrubError(error.cause, scrub);
}

export function scrubStep(step: TestStep, scrub: Scrub): void {
  step.title = scrub(step.title);
  scrubError(step.error, scrub);
  for (const attachment of step.attachments ?? []) scrubAttachment(attachment, scrub);
  for (const child of step.steps) scrubStep(child, scrub);
}

export function scrubAttachment(attachment: Attachment, scrub: Scrub): void {
  if (attachment.name === CASE_OUTCOME_ATTACHMENT) return;
  const keepKeys = attachment.name === CASE_FINDINGS_ATTACHMENT;
  if (!keepKeys) attachment.name = scrub(attachment.name);
  if (!TEXTUAL.test(attachment.contentType)) return;
  if (attachment.body)
    attachment.body = Buffer.from(scrubText(attachment.body.toString('utf8'), attachment.contentType, scrub, keepKeys));
  if (attachment.path) {
    const text = readFileSync(attachment.path, 'utf8');
    const scrubbed = scrubText(text, attachment.contentType, scrub, keepKeys);
    if (scrubbed !== text) writeFileSync(attachment.path, scrubbed);
  }
}

export function scrubResult(test: TestCase, result: TestResult, scrub: Scrub): void {
  for (const error of result.errors) scrubError(error, scrub);
  scrubError(result.error, scrub);
  for (const step of result.steps) scrubStep(step, scrub);
  for (const attachment of result.attachments) scrubAttachment(attachment, scrub);
  for (const annotation of [...result.annotations, ...test.annotations]) {
    if (annotation.description !== undefined) annotation.description = scrub(annotation.description);
  }
  result.stdout = result.stdout.map((chunk) => scrub(chunk.toString()));
  result.stderr = result.stderr.map((chunk) => scrub(chunk.toString()));
}

export default class SecretScrubber implements Reporter {
  private readonly scrub: Scrub;

  constructor(options: SecretScrubberOptions) {
    // Never a scrubber that replaces nothing by mistake: a configuration must say what to replace.
    if (!Array.isArray(options?.secrets)) throw new Error('the secret scrubber needs its secrets option');
    this.scrub = scrubber(options.secrets);
  }

  printsToStdio(): boolean {
    return false;
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    namingFailures(SECRET_SCRUBBER, () => scrubStep(step, this.scrub));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    namingFailures(SECRET_SCRUBBER, () => scrubResult(test, result, this.scrub));
  }

  onError(error: TestError): void {
    // Not wrapped: Playwright does not pass on what a reporter throws from onError.
    scrubError(error, this.scrub);
  }

  onEnd(_result: FullResult): void {}
}

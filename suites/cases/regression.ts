// Regression cases (targets/regression-cases.ts): exchanges that once broke a requirement, kept as
// data in the target file. Each is sent as recorded, with the run's own token in the scheme it
// names, judged like every exchange of the suite, and fails under its requirement when the answer
// breaks it again, whichever part of the kit judges that requirement. A case generated inputs
// found (it names its operation) is sent as generation sends an input found before and judged as
// generation judges it: what the input may be answered, its open places relaxed.
import { blockingLevels, REGRESSION_TITLE_MARK } from '../../run-protocol/index.ts';
import { FAILURE_SENDS } from '../../run-protocol/reproduction.ts';
import type { RegressionCase } from '../../targets/regression-cases.ts';
import type { ConformanceCase } from '../case.ts';
import { generateForOperation } from '../generation/generate.ts';
import type { SuiteCase } from './suite-case.ts';

export function regressionSuiteCases(cases: readonly RegressionCase[]): SuiteCase[] {
  return cases.map((c): SuiteCase => ({
    title: `${REGRESSION_TITLE_MARK}${c.name}`,
    requirements: [c.requirement],
    async run(conformance) {
      if (c.operation !== undefined) return sendFoundInput(conformance, c, c.operation);
      const { request } = c;
      const headers = { ...(request.headers ?? {}), ...conformance.credentials[request.credentials] };
      const { answer, findings } = await conformance.sendOutgoing({
        method: request.method,
        path: request.path,
        headers,
        bodyText: request.body,
      });
      const again = findings.find((f) => f.requirement === c.requirement && f.location !== 'request');
      // The suite reports most requirements under their own ids already; one only the proxy judges is reported here.
      if (again && !conformance.recorded(c.requirement, answer))
        conformance.fail(c.requirement, answer, {
          pointer: again.pointer,
          message: `broken again (${c.why}): ${again.message}`,
          expected: again.expected,
          actual: again.actual,
        });
    },
  }));
}

/** A case generation found: its input sent again as the first of a generation that draws nothing else. */
async function sendFoundInput(conformance: ConformanceCase, c: RegressionCase, operationId: string): Promise<void> {
  const { path, body } = c.request;
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : undefined;
  await generateForOperation(conformance, {
    operation: conformance.contract.operation(operationId),
    fixtures: conformance.target.fixtures,
    inputs: 0,
    foundBefore: [{ ...(query !== undefined ? { query } : {}), ...(body !== undefined ? { bodyText: body } : {}) }],
    boundary: false,
    seed: 0,
    // The input and its sends again, each within the request timeout.
    budgetMs: (FAILURE_SENDS + 1) * conformance.target.limits.requestTimeoutMs,
    blocking: blockingLevels(conformance.failLevel),
  });
}

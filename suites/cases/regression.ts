// Regression cases (targets/regression-cases.ts): exchanges that once broke a requirement, kept as
// data in the target file. Each is sent as recorded, with the run's own token in the scheme it
// names, judged like every exchange of the suite, and fails under its requirement when the answer
// breaks it again, whichever part of the kit judges that requirement.
import { REGRESSION_TITLE_MARK } from '../../run-protocol/index.ts';
import type { RegressionCase } from '../../targets/regression-cases.ts';
import type { SuiteCase } from './suite-case.ts';

export function regressionSuiteCases(cases: readonly RegressionCase[]): SuiteCase[] {
  return cases.map((c): SuiteCase => ({
    title: `${REGRESSION_TITLE_MARK}${c.name}`,
    requirements: [c.requirement],
    async run(conformance) {
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

// The annotations a case carries (the requirements it names, its notes) and the mark of a regression case's title.

/** The annotation type that names a requirement a case exercises, with its `level` and `section` beside it. */
export const REQUIREMENT_ANNOTATION = 'requirement';

/** What a regression case's title says after its requirement ids: `ERR-STATUS-STRING · regression: name`. */
export const REGRESSION_TITLE_MARK = 'regression: ';

/** The name of a regression case from its test title, or null for a case of the suite. */
export function regressionCaseName(title: string): string | null {
  const at = title.indexOf(` · ${REGRESSION_TITLE_MARK}`);
  return at < 0 ? null : title.slice(at + 3 + REGRESSION_TITLE_MARK.length);
}
export const LEVEL_ANNOTATION = 'level';
export const SECTION_ANNOTATION = 'section';
/** The annotation types of a finding that does not block: an INFO observation, or a warning below the fail level. */
export const OBSERVATION_ANNOTATION = 'observation';
export const WARNING_ANNOTATION = 'warning';
/**
 * The annotation type of a blocking finding of a requirement the case does not name: recorded on that requirement,
 * never failing this case.
 */
export const SIDE_FINDING_ANNOTATION = 'side finding';
/**
 * The annotation type of a blocking finding the gate accepts (an active waiver, a --baseline failure): the case is not
 * failed for it.
 */
export const FORGIVEN_ANNOTATION = 'accepted by the gate';

// What the gate accepts: waivers of the target file until their day, and the failures a --baseline record already had.
/** A waiver as the target file gives it: a known failure the gate accepts until a date. */
export interface WaiverSetting {
  requirement: string;
  reason: string;
  /** YYYY-MM-DD, the last day it holds. */
  expires: string;
}

/** What the gate is given: the target file's waivers, and the --baseline file with the requirements failing in it. */
export interface GateInputs {
  waivers: WaiverSetting[];
  baseline?: Baseline;
}

export interface Baseline {
  file: string;
  failing: string[];
}

/** True while a waiver holds: through its `expires` day (UTC), `today` being YYYY-MM-DD. */
export function waiverActive(waiver: Pick<WaiverSetting, 'expires'>, today: string): boolean {
  return waiver.expires >= today;
}

/** Why the gate accepts a waived failure, as every report words it. */
export function waivedReason(waiver: Pick<WaiverSetting, 'reason' | 'expires'>): string {
  return `waived until ${waiver.expires}: ${waiver.reason}`;
}

/** Why the gate accepts a failure the --baseline record already had, as every report words it. */
export function baselineReason(file: string): string {
  return `known failure in the baseline ${file}`;
}

/**
 * The requirements whose failures the gate accepts, each with why, for the case outcomes: an
 * active waiver (its reason and last day) or a failure the --baseline record already had.
 */
export function gateAccepted(run: GateInputs, today: string): Map<string, string> {
  const accepted = new Map<string, string>();
  for (const id of run.baseline?.failing ?? []) accepted.set(id, baselineReason(run.baseline!.file));
  for (const waiver of run.waivers)
    if (waiverActive(waiver, today)) accepted.set(waiver.requirement, waivedReason(waiver));
  return accepted;
}

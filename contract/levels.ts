// The catalogue's levels, strongest first, as its schema lists them, and the places a finding can
// be seen. Every list of levels or locations in the kit is one of these.
import { readFileSync } from 'node:fs';
import type { Level, Location } from './types.ts';

const catalogueSchema = JSON.parse(
  readFileSync(new URL('../schemas/requirements.schema.json', import.meta.url), 'utf8'),
) as { $defs: { requirement: { properties: { level: { enum: Level[] } } } } };

export const LEVELS: readonly Level[] = catalogueSchema.$defs.requirement.properties.level.enum;

export const LOCATIONS: readonly Location[] = ['request', 'response', 'exchange'];

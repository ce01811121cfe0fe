// `npm run bench contract`: validations per second of a 100-item NotificationGroup list document
// through validateResponse, against ajv alone compiled on the same resolved schema with the same
// options, with and without the JSON.parse that validateResponse does on the body text. Rounds
// are interleaved and each ratio is taken within a round, so drift in machine load hits the
// variants alike; medians over the rounds are reported.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Contract, createAjv, MEDIA_TYPE, SCHEMA_DIR, validateResponse } from '../contract/index.ts';

const ITEMS = 100;
const ROUNDS = 15;
const ROUND_MS = 100;
const WARMUP_MS = 300;

interface Variant {
  name: string;
  run: () => unknown;
}

export default async function contractBench(): Promise<void> {
  const started = performance.now();
  const contract = new Contract(
    readFileSync(`${SCHEMA_DIR}openapi.yaml`, 'utf8'),
    readFileSync(`${SCHEMA_DIR}requirements.yaml`, 'utf8'),
  );
  contract.compileValidators();
  const loadMs = performance.now() - started;

  const operation = contract.operation('listNotificationGroups');
  const schema = contract.schemas.NotificationGroupListDocument;
  const bodyText = JSON.stringify(listDocument(ITEMS));
  const parsed: unknown = JSON.parse(bodyText);
  const rawValidate = createAjv().compile(schema);
  const headers = { 'content-type': MEDIA_TYPE };

  const variants: Variant[] = [
    // A fresh response object per call, as the proxy builds one per exchange, so the contract's
    // per-message parse cache never serves a body parsed in an earlier iteration.
    {
      name: 'validateResponse (body text)',
      run: () => validateResponse(contract, operation, { status: 200, headers, bodyText }).length,
    },
    { name: 'ajv + JSON.parse (body text)', run: () => rawValidate(JSON.parse(bodyText)) },
    { name: 'ajv alone (parsed object)', run: () => rawValidate(parsed) },
  ];
  const findings = validateResponse(contract, operation, { status: 200, headers, bodyText });
  if (findings.length > 0 || !rawValidate(parsed))
    throw new Error(`the benchmark document must be valid: ${findings.map((f) => f.message).join('; ')}`);

  for (const variant of variants) opsPerSecond(variant.run, WARMUP_MS);
  const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) samples.get(variant.name)!.push(opsPerSecond(variant.run, ROUND_MS));
  }

  const median = (name: string) => medianOf(samples.get(name)!);
  const ratio = (numerator: string, denominator: string) =>
    medianOf(samples.get(numerator)!.map((value, round) => value / samples.get(denominator)![round]));
  const [module, withParse, alone] = variants.map((v) => v.name);
  process.stdout.write(`contract load + compile (once per process): ${loadMs.toFixed(0)} ms\n`);
  process.stdout.write(
    `${ITEMS}-item list document, ${bodyText.length} bytes; median of ${ROUNDS} interleaved rounds of ${ROUND_MS} ms\n`,
  );
  for (const variant of variants)
    process.stdout.write(
      `  ${variant.name.padEnd(32)} ${Math.round(median(variant.name)).toLocaleString('en-US').padStart(9)} validations/s\n`,
    );
  process.stdout.write(
    `  validateResponse / (ajv + JSON.parse): ${ratio(module, withParse).toFixed(3)}  (1.000 = no module overhead)\n`,
  );
  process.stdout.write(
    `  validateResponse / ajv alone:          ${ratio(module, alone).toFixed(3)}  (includes parsing the text)\n`,
  );
}

/** Kept so the engine cannot drop calls whose results nothing reads. */
export let resultsSeen = 0;

/** Calls `run` in batches until `budgetMs` has passed; returns calls per second. */
function opsPerSecond(run: () => unknown, budgetMs: number): number {
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < budgetMs) {
    for (let i = 0; i < 25; i++) resultsSeen += run() ? 1 : 0;
    calls += 25;
    elapsed = performance.now() - start;
  }
  return (calls / elapsed) * 1000;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const groupIds = [
  'AssignmentAdmin',
  'Assignments',
  'Exams',
  'ExamResults',
  'ExamAdmin',
  'Products',
  'SpacedLearning',
  'Flags',
  'System',
];

function listDocument(count: number) {
  const data = Array.from({ length: count }, (_, i) => ({
    id: `5f8d0d55b5476442${i.toString(16).padStart(8, '0')}`,
    type: 'NotificationGroup',
    attributes: {
      groupId: groupIds[i % groupIds.length],
      label: `Notification group ${i}`,
      defaultValue: i % 2 === 0,
      description: `Notifications about ${groupIds[i % groupIds.length]} (${i})`,
      recipientType: ['portal', 'admin', 'moderator', 'student'].slice(0, 1 + (i % 4)),
    },
    relationships: {},
  }));
  return { data, meta: { total: 250, pages: 3, page: 1, offset: 0, limit: count } };
}

// Runs every case of schemas/cases/ (hand-written and derived) through the contract: the
// component's compiled validator, and each operation body the component is the schema of, so
// the routing of each violation to its requirement is covered too.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { loadContract, problemsFromErrors, schemaMembers } from './index.ts';
import { hasValueAt } from './resolve.ts';
import {
  allCases,
  CASE_FILE_SCHEMA,
  completeExample,
  documentUses,
  readCaseFiles,
  readCaseFileSources,
  requirementRoutedFor,
  resolveCaseFile,
  type CaseFile,
  type SchemaCase,
} from './schema-cases.ts';

const contract = loadContract();
const caseFiles = readCaseFiles();

function distinct(values: string[]): string[] {
  return [...new Set(values)].sort();
}

function componentPointers(file: CaseFile, data: unknown): string[] | null {
  const validate = contract.componentValidator(file.schema);
  if (validate(data)) return null;
  return distinct(problemsFromErrors(validate.errors ?? [], false, true).map((p) => p.pointer));
}

describe('schema case files', () => {
  const validateCaseFile = new Ajv2020({ strict: true, allErrors: true }).compile(
    JSON.parse(readFileSync(CASE_FILE_SCHEMA, 'utf8')),
  );

  for (const [name, source] of readCaseFileSources()) {
    it(`${name} follows the case-file format`, () => {
      expect(validateCaseFile(source), JSON.stringify(validateCaseFile.errors, null, 2)).toBe(true);
    });
  }

  it('reads a case written as a change of the complete example as the whole document it stands for, and refuses one that removes a member the example lacks', () => {
    const source = {
      description: 'owner',
      schema: 'Owner',
      tests: [
        {
          description: 'complete',
          data: { data: { id: '60a7c0f2e4b0c83d2f9a1b23', type: 'User' }, meta: {} },
          valid: true,
          spec: '2.4',
          complete: true as const,
        },
        {
          description: 'another type, no meta',
          change: { '/data/type': 'Admin' },
          remove: ['/meta'],
          valid: false,
          pointer: '/data/type',
          spec: '2.4',
        },
        { description: 'no links to remove', remove: ['/links'], valid: true, spec: '2.4' },
      ],
    };
    expect(resolveCaseFile('Owner.json', { ...source, tests: source.tests.slice(0, 2) }).tests[1].data).toEqual({
      data: { id: '60a7c0f2e4b0c83d2f9a1b23', type: 'Admin' },
    });
    expect(() => resolveCaseFile('Owner.json', source)).toThrow(
      'schemas/cases/Owner.json: "no links to remove" removes /links, which the complete example does not have',
    );
  });

  for (const [name, file] of caseFiles) {
    it(`${name} is named after a component and has one complete example holding every member the schema names`, () => {
      expect(name).toBe(`${file.schema}.json`);
      expect(Object.keys(contract.schemas)).toContain(file.schema);
      expect(file.tests.filter((c) => c.complete)).toHaveLength(1);
      const example = completeExample(file)!;
      const absent = schemaMembers(contract.schemas[file.schema])
        .filter((m) => !hasValueAt(example.data, m.pointer))
        .map((m) => m.pointer);
      expect(absent, 'members missing from the complete example').toEqual([]);
    });

    it(`${name} names only real uses in its requirements, each named use or status routing a case of it`, () => {
      const uses = documentUses(contract, file.schema);
      const named = file.tests.flatMap((c) => Object.keys(c.requirements ?? {}));
      const real = (n: string) => uses.some((u) => u.name === n || String(u.status) === n);
      expect(named.filter((n) => !real(n))).toEqual([]);
    });
  }

  it('cover every component of openapi.yaml', () => {
    const covered = [...caseFiles.values()].map((f) => f.schema).sort();
    expect(covered).toEqual(Object.keys(contract.schemas).sort());
  });
});

for (const [name, file] of caseFiles) {
  const uses = documentUses(contract, file.schema);
  describe(name, () => {
    for (const c of allCases(contract, file)) {
      it(c.description, () => {
        expectComponentVerdict(file, c);
        for (const use of uses) expectUseVerdict(use, c);
      });
    }
  });
}

function expectComponentVerdict(file: CaseFile, c: SchemaCase): void {
  const pointers = componentPointers(file, c.data);
  if (c.valid) expect(pointers, `${file.schema} rejects it`).toBeNull();
  else expect(pointers, `${file.schema} reports the violation at`).toEqual([c.pointer]);
}

function expectUseVerdict(use: ReturnType<typeof documentUses>[number], c: SchemaCase): void {
  const findings = use.validate(contract, c.data);
  if (c.valid) {
    expect(findings, `as ${use.name}`).toEqual([]);
    return;
  }
  expect(distinct(findings.map((f) => f.pointer)), `pointers as ${use.name}`).toEqual([c.pointer]);
  const requirement = requirementRoutedFor(c, use);
  if (requirement)
    expect(distinct(findings.map((f) => f.requirement)), `requirement as ${use.name}`).toEqual([requirement]);
}

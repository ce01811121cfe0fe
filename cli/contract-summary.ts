// A person-readable summary of the contract: what `las-conformance contract` prints.
import { LEVELS, loadContract } from '../contract/index.ts';

export function contractSummary(): string {
  const contract = loadContract();
  const lines = [
    `Learning and Assessment Service API ${contract.version} (root ${contract.basePath})`,
    '',
    'Specified operations:',
  ];
  for (const operation of contract.operations) {
    lines.push(
      `  ${operation.method.padEnd(5)} ${contract.basePath}${operation.pathTemplate.padEnd(22)} ${operation.operationId.padEnd(24)} statuses ${operation.statuses.join(', ')}`,
    );
  }
  const named = Object.values(contract.namedOperations).reduce((sum, list) => sum + list.length, 0);
  lines.push(
    `Named without detail: ${named} operations in ${Object.keys(contract.namedOperations).length} groups`,
    '',
    'Requirements by level:',
  );
  for (const level of LEVELS) {
    const ids = contract.requirements.filter((r) => r.level === level).map((r) => r.id);
    lines.push(`  ${level.padEnd(6)} ${String(ids.length).padStart(3)}  ${ids.join(', ')}`);
  }
  return lines.join('\n') + '\n';
}

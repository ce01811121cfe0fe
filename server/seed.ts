// The deterministic NotificationGroups the list serves (section 2.2). Allowed values come from
// the contract, so every groupId and every recipientType value is used in each filter's list.
import type { Contract, Operation } from '../contract/index.ts';
import { SEED_SIZES } from './defaults.ts';
import { objectIdSequence } from './object-id.ts';
import type { NotificationGroupResource } from './types.ts';

type Schema = Record<string, unknown>;

const EVENTS = ['published', 'updated', 'due soon', 'overdue', 'summary'];
const SEED_SECONDS = 0x6553f100;
const SEED_MACHINE = '5eed00a1b2';

/** The values of `filter[type]` the list operation allows, in the contract's order. */
export function filterTypes(operation: Operation): string[] {
  const filter = operation.parameters.find((p) => p.name === 'filter');
  const type = ((filter?.schema.properties ?? {}) as Record<string, Schema>).type;
  return (type?.enum ?? []) as string[];
}

function attributeEnum(contract: Contract, name: string): string[] {
  const attribute = ((contract.schemas.NotificationGroupAttributes.properties ?? {}) as Record<string, Schema>)[name];
  return (attribute.enum ?? (attribute.items as Schema | undefined)?.enum ?? []) as string[];
}

/** "SpacedLearning" → "Spaced learning". */
function words(identifier: string): string {
  const spaced = identifier.replace(/([a-z])([A-Z])/g, '$1 $2');
  return spaced.charAt(0) + spaced.slice(1).toLowerCase();
}

/** One recipient value per item in turn, a second one on every third item, none on every fifth. */
function recipientsOf(index: number, values: string[]): string[] | undefined {
  if (index % 5 === 4) return undefined;
  const first = values[index % values.length];
  return index % 3 === 0 ? [first, values[(index + 1) % values.length]] : [first];
}

/** NotificationGroups per filter type, ordered by id; sizes from SEED_SIZES. */
export function seedNotificationGroups(contract: Contract, operation: Operation): Map<string, NotificationGroupResource[]> {
  const types = filterTypes(operation);
  if (types.length !== Object.keys(SEED_SIZES).length || !types.every((t) => t in SEED_SIZES)) {
    throw new Error(`SEED_SIZES must name exactly the filter types of the contract (${types.join(', ')})`);
  }
  const resourceType = String(((contract.schemas.NotificationGroup.properties ?? {}) as Record<string, Schema>).type.const);
  const groupIds = attributeEnum(contract, 'groupId');
  const recipientValues = attributeEnum(contract, 'recipientType');
  const nextId = objectIdSequence(SEED_SECONDS, SEED_MACHINE);
  const lists = new Map<string, NotificationGroupResource[]>();
  for (const filterType of types) {
    const items: NotificationGroupResource[] = [];
    for (let index = 0; index < SEED_SIZES[filterType]; index++) {
      const groupId = groupIds[index % groupIds.length];
      const event = EVENTS[Math.floor(index / groupIds.length) % EVENTS.length];
      const recipientType = recipientsOf(index, recipientValues);
      items.push({
        id: nextId(),
        type: resourceType,
        attributes: {
          groupId,
          label: `${words(groupId)} ${event}`,
          defaultValue: index % 2 === 0,
          description: `Notifies ${filterType} recipients when ${words(groupId).toLowerCase()} notices are ${event === 'summary' ? 'summarised' : event}.`,
          ...(recipientType ? { recipientType } : {}),
        },
        relationships: {},
      });
    }
    lists.set(filterType, items);
  }
  return lists;
}

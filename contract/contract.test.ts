import { describe, expect, it } from 'vitest';
import { loadContract, route, validateRequest } from './index.ts';

describe('loadContract', () => {
  it('compiles once per process and returns the same contract', () => {
    expect(loadContract()).toBe(loadContract());
  });

  it('knows the three specified operations', () => {
    expect(loadContract().operations.map((o) => o.operationId)).toEqual(['listNotificationGroups', 'createAttributeConfig', 'createHighlight']);
  });

  it('routes only the specified paths under the base path', () => {
    const contract = loadContract();
    expect(route(contract, 'GET', '/v3/notification-groups?filter[type]=portal')?.operationId).toBe('listNotificationGroups');
    expect(route(contract, 'POST', '/v3/highlights/')?.operationId).toBe('createHighlight');
    expect(route(contract, 'GET', '/v3/highlights')).toBeNull();
    expect(route(contract, 'GET', '/notification-groups')).toBeNull();
    expect(route(contract, 'GET', '/api/v3/notification-groups', '/api/v3')?.operationId).toBe('listNotificationGroups');
  });

  it('names the query parameter and the bound in its messages', () => {
    const contract = loadContract();
    const findings = validateRequest(contract, contract.operation('listNotificationGroups'), {
      method: 'GET',
      path: '/v3/notification-groups?filter[type]=portal&page[limit]=0&page[offset]=0',
      headers: { authorization: 'Bearer r:token' },
    });
    expect(findings).toEqual([expect.objectContaining({ requirement: 'NG-PAGE-LIMIT-MIN', level: 'MUST', pointer: 'page[limit]', message: 'page[limit] must be a number ≥ 1, got 0' })]);
  });

  it('has a route for every schema violation and ids that are unique', () => {
    const ids = loadContract().requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

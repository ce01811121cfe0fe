// What the contract's tests share: the loaded contract, its three operations, and the headers of
// a well-formed request.
import { loadContract, MEDIA_TYPE } from './index.ts';

export const contract = loadContract();
export const list = contract.operation('listNotificationGroups');
export const createAttributeConfig = contract.operation('createAttributeConfig');
export const createHighlight = contract.operation('createHighlight');
export const credentials = { authorization: 'Bearer r:token' };
export const jsonApi = { 'content-type': MEDIA_TYPE };

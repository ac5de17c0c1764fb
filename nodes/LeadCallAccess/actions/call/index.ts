import type { ResourceDeclaration } from '../operation';
import * as getAll from './getAll.operation';

export const call: ResourceDeclaration = {
	value: 'call',
	name: 'Call',
	operations: [getAll.operation],
};

import type { ResourceDeclaration } from '../operation';
import * as get from './get.operation';

export const recording: ResourceDeclaration = {
	value: 'recording',
	name: 'Recording',
	operations: [get.operation],
};

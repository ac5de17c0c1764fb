import type { ResourceDeclaration } from '../operation';
import * as importLead from './import.operation';

export const lead: ResourceDeclaration = {
	value: 'lead',
	name: 'Lead',
	operations: [importLead.operation],
};

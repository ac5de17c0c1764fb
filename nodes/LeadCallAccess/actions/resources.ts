import type { ResourceDeclaration } from './operation';
import { call } from './call';
import { lead } from './lead';
import { recording } from './recording';

/** The node's resources, in the order their fields appear; the first is the default. */
export const resources: ResourceDeclaration[] = [lead, call, recording];

import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { LAWFUL_BASES } from '../actions/lead/fields';

/** "From List" of Legal Basis: the GDPR lawful bases, filtered by the search box. No API call. */
export async function searchLawfulBases(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const results = LAWFUL_BASES.filter(
		(basis) =>
			needle === '' || basis.name.toLowerCase().includes(needle) || basis.value.includes(needle),
	);
	return { results };
}

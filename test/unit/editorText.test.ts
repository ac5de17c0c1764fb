/**
 * The texts the editor shows under and beside each field (descriptions, hints, notices, option
 * descriptions) are read by no-code users: at most 200 characters, and no HTTP status codes or
 * header names where a plain word does. The details live in the README.
 */
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { LeadCallAccessApi } from '../../credentials/LeadCallAccessApi.credentials';
import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { LeadCallAccessTrigger } from '../../nodes/LeadCallAccessTrigger/LeadCallAccessTrigger.node';

const MAX_LENGTH = 200;

/**
 * Words a no-code user does not know, as developers write them: HTTP status codes (4xx, 5xx) and
 * header names, and the API's and n8n's inner terms (how a list is paged, how files and
 * remembered leads are kept, the phone standard's name). The README explains what the editor
 * may not say.
 */
const DEVELOPER_WORDS =
	/\b[45]\d\d\b|Retry-After|X-RateLimit|RateLimit-|Authorization|Bearer|Content-Type|E\.164|signed (URL|link)|cursor|\boffset\b|has_more|paginat|\bpacing\b|binary (field|property|data)|deduplicat|upsert|\bnull\b|\bemits?\b/i;

type Option = INodeProperties | INodePropertyOptions | INodePropertyCollection;

/** Every text a user reads next to a field, with where it comes from. */
export function editorTexts(properties: Option[], where: string): Array<[string, string]> {
	const texts: Array<[string, string]> = [];
	for (const property of properties) {
		const label = 'displayName' in property ? property.displayName : property.name;
		const at = `${where} > ${label}`;
		if ('type' in property && property.type === 'notice') texts.push([at, property.displayName]);
		if ('description' in property && typeof property.description === 'string') {
			texts.push([at, property.description]);
		}
		if ('hint' in property && typeof property.hint === 'string') texts.push([at, property.hint]);
		if ('options' in property && Array.isArray(property.options)) {
			texts.push(...editorTexts(property.options as Option[], at));
		}
		if ('values' in property && Array.isArray(property.values)) {
			texts.push(...editorTexts(property.values, at));
		}
	}
	return texts;
}

/** What the editor shows of a text: a link's words, not its address. */
const shown = (text: string) => text.replace(/<[^>]+>/g, '');

const all: Array<[string, string]> = [
	...editorTexts(new LeadCallAccess().description.properties, 'Lead & Call Access'),
	...editorTexts(new LeadCallAccessTrigger().description.properties, 'Trigger'),
	...editorTexts(new LeadCallAccessApi().properties, 'Credential'),
];

test('the nodes and the credential have texts to check', () => {
	expect(all.length).toBeGreaterThan(30);
});

test(`every description, hint and notice is at most ${MAX_LENGTH} characters`, () => {
	const long = all.filter(([, text]) => shown(text).length > MAX_LENGTH);
	expect(long.map(([where, text]) => `${where} (${shown(text).length})`)).toEqual([]);
});

test('no description, hint or notice carries an HTTP code, header name or API term', () => {
	const technical = all.filter(([, text]) => DEVELOPER_WORDS.test(shown(text)));
	expect(technical.map(([where, text]) => `${where}: ${DEVELOPER_WORDS.exec(text)?.[0]}`)).toEqual(
		[],
	);
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/** `npm run phone:metadata`: rewrites the node's phone rules from the installed libphonenumber-js. */
import { writeFileSync } from 'fs';
import { format, resolveConfig } from 'prettier';

import { PHONE_METADATA_FILE, phoneMetadataSource } from './metadata';

// Formatted like the rest of the code, so `npm run format` leaves it as generated.
resolveConfig(PHONE_METADATA_FILE)
	.then((style) => format(phoneMetadataSource(), { ...style, parser: 'typescript' }))
	.then((source) => {
		writeFileSync(PHONE_METADATA_FILE, source);
		console.log(`Wrote ${PHONE_METADATA_FILE} (${Buffer.byteLength(source)} bytes)`);
	})
	.catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});

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

/** `npm run phone:metadata`: rewrites the node's phone rules from the installed libphonenumber-js. */
import { writeFileSync } from 'fs';

import { PHONE_METADATA_FILE, phoneMetadataSource } from './metadata';

phoneMetadataSource()
	.then((source) => {
		writeFileSync(PHONE_METADATA_FILE, source);
		console.log(`Wrote ${PHONE_METADATA_FILE} (${Buffer.byteLength(source)} bytes)`);
	})
	.catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});

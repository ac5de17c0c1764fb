import { PHONE_METADATA } from '../../nodes/LeadCallAccess/helpers/phoneMetadata';
import { buildPhoneMetadata } from '../../devkit/phone/metadata';

// The node's phone rules are checked in (no runtime dependencies); they must be the installed
// libphonenumber-js's. After upgrading it, run `npm run phone:metadata`.
test('phoneMetadata.ts holds the rules of the installed libphonenumber-js', () => {
	expect(PHONE_METADATA).toEqual(buildPhoneMetadata());
});

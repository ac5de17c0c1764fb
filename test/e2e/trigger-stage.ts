/**
 * One TriggerStage (a real n8n with the package, and the emulator) for the calling test file,
 * with the credential its workflows use: opened before the file's tests, its workflows
 * unpublished and its key restored after each test, closed after the file.
 */
import type { EmulatorOptions } from '../../devkit/emulator';
import { DEMO_KEYS } from '../../devkit/emulator';
import { TriggerStage } from './trigger-helpers';

export const CREDENTIAL_NAME = 'Lead & Call Access';

export function useTriggerStage(options: EmulatorOptions): {
	stage: () => TriggerStage;
	credentialId: () => string;
} {
	let stage: TriggerStage | undefined;
	let credentialId = '';
	beforeAll(async () => {
		stage = await TriggerStage.open(options);
		credentialId = await stage.createCredential(CREDENTIAL_NAME, DEMO_KEYS.full);
	}, 600_000);
	afterEach(async () => {
		await stage?.unpublishAll();
		// A test that failed half-way may have left the credential with a revoked key.
		await stage?.setApiKey(credentialId, CREDENTIAL_NAME, DEMO_KEYS.full);
	});
	afterAll(async () => {
		await stage?.close();
	});
	return {
		stage: () => {
			if (stage === undefined) throw new Error('the trigger stage is not open');
			return stage;
		},
		credentialId: () => credentialId,
	};
}

/**
 * save-recordings-to-google-drive.json in a real n8n, its Google Drive nodes as imported: n8n's
 * own Google Drive node calls https://www.googleapis.com, answered by the local stand-in
 * (devkit/drive), which the session's n8n reaches through the stand-in's proxy (`drive.n8nEnv`
 * in the session's env). Only the folder ID and the credentials are what a user would set.
 */
import type { DriveFile, LocalDrive } from '../drive';
import type { CredentialJson } from '../n8n';
import { EXAMPLES, loadExample } from './examples';
import { runNight, UPLOAD_TRIGGER, type Night, type NightRun } from './recordingExamples';
import type { Session } from './session';

/**
 * The Google Drive credential the example names, as n8n keeps one after "Connect my account":
 * the stand-in takes any token.
 */
const DRIVE_CREDENTIAL: CredentialJson = {
	id: '6',
	name: 'Google Drive account',
	type: 'googleDriveOAuth2Api',
	data: {
		clientId: 'stand-in-client',
		clientSecret: 'stand-in-secret',
		oauthTokenData: { access_token: 'stand-in-token', token_type: 'Bearer', expires_in: 3599 },
	},
};

/** save-recordings-to-google-drive.json over `night`, its Drive being `drive`. */
export async function runDriveExample(
	session: Session,
	credential: CredentialJson,
	drive: LocalDrive,
	night: Night,
): Promise<NightRun & { files: DriveFile[]; workflowId: string }> {
	const workflow = loadExample(EXAMPLES.googleDrive, session.filesDir);
	const run = await runNight(
		session,
		workflow,
		UPLOAD_TRIGGER,
		[credential, DRIVE_CREDENTIAL],
		night,
	);
	return { ...run, files: [...drive.files], workflowId: run.executions[0].workflowId };
}

/** API emulator for the Lead Import and Call Access service: see README.md in this folder. */
export * from './types';
export { DEMO_KEYS, DEMO_KEY_SCOPES } from './auth';
export { startEmulator } from './server';
export { connectEmulator } from './client';
export type { EmulatorControl, EmulatorState } from './client';
export { recordingBytes } from './file-host';

/** API emulator for the Lead Import and Call Access service: see README.md in this folder. */
export * from './types';
export { DEMO_KEYS, DEMO_KEY_SCOPES, API_KEY_PATTERN } from './auth';
export { startEmulator } from './server';
export { connectEmulator } from './client';
export type { EmulatorControl, EmulatorState } from './client';
export { serializeFault, parseFault } from './faults';
export type { SerializedFault } from './faults';
export { recordingBytes } from './file-host';
export { generateCall } from './calls';
export { DEFAULT_RATE_LIMIT } from './rate-limit';

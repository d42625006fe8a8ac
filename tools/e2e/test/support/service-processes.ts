// Moved to @appcat/testing so the chaos suite runs services the same way.
export { ServiceProcess, waitReady } from '@appcat/testing';

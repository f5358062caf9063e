/**
 * `agent-server-contract/server`: what an application needs to embed the server: the
 * Express application, the conversations-directory store, the listener with its limits,
 * the JSON-lines logger and the contract document the validator uses.
 */
export { type AppOptions, createApp } from './server/app';
export { listen, type RunningServer, SERVER_LIMITS, type ServerLimits } from './server/listen';
export * from './store';
export { createLogger, type Logger, type LogFields, type LogLevel } from './log';
export { loadOpenApiDocument, type OpenApiDocument } from './contract/document';

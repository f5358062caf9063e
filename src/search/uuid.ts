/** Moved to src/request-value/uuid.ts, the one place request values are parsed; kept so existing imports compile. */
export * from '../request-value/uuid';

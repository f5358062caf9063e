/**
 * The contract's `Event` schema as a validator compiled ahead of time by `npm run generate`
 * (generated/event-validator.js), so neither a server start nor a decode worker pays Ajv's
 * compile time before its first event. Imported on its own (not through index.ts) by the
 * decode workers, which need nothing else of the contract.
 */
import validateEvent from '../../generated/event-validator';

export { validateEvent };

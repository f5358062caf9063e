/**
 * The one place a request value is parsed, the way pydantic 2 reads it: HTTP parameters
 * (src/server), both sockets' paths and queries (src/live) and the command line's switches
 * (src/cli) read ids, date-times, integers and booleans here. Date-times are read by
 * src/search/timestamps.ts, which shares its calendar with the reading of stored
 * timestamps; it is re-exported here so callers have one import.
 */
export * from './boolean';
export * from './enum';
export * from './integer';
export * from './json-text';
export * from './uuid';
export { type Micros, type TimestampParse, parseFilterTimestamp } from '../search/timestamps';

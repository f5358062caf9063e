/**
 * Node flags the `agent-server` bin runs with: written in the first line of src/cli/start.ts
 * (a shebang cannot import) and in `npm start` (package.json); the development spawner
 * (dev/process) starts the server with them too, and a test keeps the three alike.
 * What the ingester allocates for a batch of events (parsed events, rows, statement values)
 * is let go once the batch is written, so V8's young generation is sized to hold a batch's
 * work and let it die there, rather than copy it into the old generation; larger, it is
 * resident memory and no faster (bench/README.md, "Measurements behind choices in the code").
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

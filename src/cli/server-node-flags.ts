/**
 * Node flags the `agent-server` bin runs with: written in the first line of src/cli/start.ts
 * (a shebang cannot import) and in `npm start` (package.json); the development spawner
 * (dev/process) starts the server with them too, and a test keeps the three alike.
 * Nearly everything a conversation load allocates survives into the index, so V8's young
 * generation only adds copying: capped, a large load leaves less resident and shorter
 * collector pauses for other requests (bench/README.md, "Measurements behind choices in the code").
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/**
 * `GET /server_info`, which the reference's clients probe before anything else: the
 * reference's shape with this server's own values. It runs no agent and no tools, so it
 * lists none, and it names itself rather than passing for the reference.
 */
import { packageVersion } from '../package-info';

export interface ServerInfo {
  uptime: number;
  idle_time: number;
  title: string;
  version: string;
  usable_tools: string[];
  capabilities: string[];
  docs: string;
}

export function serverInfoSource(startedAt = performance.now()): { served(): void; info(): ServerInfo } {
  const version = packageVersion();
  let lastServedAt = startedAt;
  return {
    served() {
      lastServedAt = performance.now();
    },
    info() {
      const now = performance.now();
      return {
        uptime: (now - startedAt) / 1000,
        idle_time: (now - lastServedAt) / 1000,
        title: 'Agent Server (agent-server-contract, read-only)',
        version,
        usable_tools: [],
        capabilities: [],
        docs: '/docs',
      };
    },
  };
}

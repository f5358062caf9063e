/**
 * `GET /server_info`, which the reference's clients probe before anything else: the
 * reference's shape with this server's own values. It runs no agent and no tools, so it
 * lists none, and it names itself rather than passing for the reference. The reference
 * 1.58.2's further fields are here too, null where they describe parts this server does not run.
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
  /** The reference reads these from its build; a package installed from npm knows no commit. */
  build_git_sha: string | null;
  build_git_ref: string | null;
  /** The reference's Canvas app backend origin: no app runs here. */
  app_backend_ingress_url: string | null;
  /** Limits of the reference's terminal tool: no terminal runs here. */
  runtime_idle_timeout_seconds: number | null;
  max_foreground_terminal_timeout_seconds: number | null;
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
        build_git_sha: null,
        build_git_ref: null,
        app_backend_ingress_url: null,
        runtime_idle_timeout_seconds: null,
        max_foreground_terminal_timeout_seconds: null,
      };
    },
  };
}

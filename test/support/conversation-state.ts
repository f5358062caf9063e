/**
 * `meta.json` and `base_state.json` modelled on what the reference agent server saves
 * beside a conversation's events (its own test fixture for 1.11.5 and what 1.58 writes),
 * with secrets in every form it stores them: a plain LLM key, AWS credentials, encrypted
 * (Fernet) values in the secret registry, an MCP server's environment.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Every secret the state below holds: none of these may ever appear in an answer. */
export const STORED_SECRETS = [
  'sk-plain-llm-key-0001',
  'AKIAEXAMPLE0001',
  'aws-secret-0001',
  'gAAAAABencrypted-github-token',
  'mcp-env-token-0001',
  'lookup-bearer-0001',
];

export interface StateOptions {
  status?: string;
  createdAt: string;
  updatedAt: string;
  title?: string | null;
  parentId?: string;
  /** Leave base_state.json out: the conversation is in the catalog but has no saved state. */
  withoutState?: boolean;
}

export function writeConversationState(root: string, id: string, options: StateOptions): void {
  const hex = id.replaceAll('-', '');
  const directory = path.join(root, hex);
  mkdirSync(directory, { recursive: true });
  // The reference's meta.json (StoredConversation): its workspace is required, the rest has defaults.
  const meta: Record<string, unknown> = {
    workspace: { working_dir: '/workspace/project', kind: 'LocalWorkspace' },
    max_iterations: 500,
    stuck_detection: true,
    tool_module_qualnames: {},
    client_tools: [],
    id,
    title: options.title ?? null,
    created_at: options.createdAt,
    updated_at: options.updatedAt,
  };
  if (options.parentId) meta['parent_conversation_id'] = options.parentId;
  writeFileSync(path.join(directory, 'meta.json'), JSON.stringify(meta));
  if (options.withoutState) return;
  const llm = (usageId: string) => ({
    model: 'openai/gpt-4o-mini',
    api_key: 'sk-plain-llm-key-0001',
    aws_access_key_id: 'AKIAEXAMPLE0001',
    aws_secret_access_key: 'aws-secret-0001',
    num_retries: 5,
    usage_id: usageId,
  });
  const state = {
    id,
    agent: {
      llm: llm('agent'),
      tools: [{ name: 'terminal', params: {} }],
      mcp_config: {
        fetch: { command: 'uvx', args: ['mcp-server-fetch'], env: { TOKEN: 'mcp-env-token-0001' } },
        search: { url: 'https://mcp.example/v1', auth: { strategy: 'bearer', value: 'mcp-bearer-0001' } },
      },
      agent_context: { skills: [{ name: 'repo', content: 'Always run the tests.' }], system_message_suffix: 'Be brief.' },
      condenser: { llm: llm('condenser'), max_size: 80, kind: 'LLMSummarizingCondenser' },
      kind: 'Agent',
    },
    workspace: { working_dir: '/workspace/project', kind: 'LocalWorkspace' },
    persistence_dir: `workspace/conversations/${hex}`,
    max_iterations: 500,
    stuck_detection: true,
    execution_status: options.status ?? 'finished',
    confirmation_policy: { kind: 'NeverConfirm' },
    activated_knowledge_skills: [],
    blocked_actions: {},
    blocked_messages: {},
    stats: { usage_to_metrics: {} },
    secret_registry: {
      secret_sources: {
        GITHUB_TOKEN: { kind: 'StaticSecret', value: 'gAAAAABencrypted-github-token', description: 'GitHub' },
        LOOKUP: { kind: 'LookupSecret', url: 'https://secrets.example/v1', headers: { Authorization: 'lookup-bearer-0001' } },
      },
    },
    agent_state: {},
  };
  writeFileSync(path.join(directory, 'base_state.json'), JSON.stringify(state, null, 2));
}

import { startScriptedModel } from '../../dev/reference/scripted-model';

interface CompletionBody {
  object?: string;
  model?: string;
  choices: { index: number; finish_reason: string; message: { role: string; content: string | null; tool_calls?: { id: string }[] } }[];
  error?: { message: string; type: string };
}

async function complete(baseUrl: string, model: string): Promise<{ status: number; body: CompletionBody }> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, body: (await response.json()) as CompletionBody };
}

describe('the scripted model', () => {
  it('answers each model from its own script, in order, as OpenAI chat.completion bodies, and records every request', async () => {
    const model = await startScriptedModel({
      agent: [
        { text: 'Hello.' },
        {
          toolCalls: [
            { name: 'terminal', arguments: { command: 'ls' } },
            { name: 'think', arguments: '{"broken' },
          ],
        },
      ],
      summarizer: [{ error: { status: 400, message: 'no summary today' } }],
    });
    try {
      const text = await complete(model.baseUrl, 'agent');
      expect(text).toMatchObject({
        status: 200,
        body: {
          object: 'chat.completion',
          model: 'agent',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hello.' } }],
        },
      });
      expect(text.body.choices[0]!.message).not.toHaveProperty('tool_calls');
      const failed = await complete(model.baseUrl, 'summarizer');
      expect(failed).toEqual({ status: 400, body: { error: { message: 'no summary today', type: 'invalid_request_error' } } });
      const calls = await complete(model.baseUrl, 'agent');
      expect(calls.body.choices[0]).toMatchObject({
        finish_reason: 'tool_calls',
        message: {
          content: null,
          tool_calls: [
            { type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } },
            { type: 'function', function: { name: 'think', arguments: '{"broken' } },
          ],
        },
      });
      const [first, second] = calls.body.choices[0]!.message.tool_calls!;
      expect(first!.id).not.toBe(second!.id);
      expect(model.remaining('agent')).toBe(0);
      expect(model.requests.map((request) => request.model)).toEqual(['agent', 'summarizer', 'agent']);
      expect(model.requests[0]!.body).toMatchObject({ messages: [{ role: 'user', content: 'hi' }] });
    } finally {
      await model.stop();
    }
  });

  it('says when a script is used up, and answers any other path with 404', async () => {
    const model = await startScriptedModel({ agent: [] });
    try {
      expect(await complete(model.baseUrl, 'agent')).toEqual({
        status: 400,
        body: { error: { message: 'the script for model "agent" has no reply left', type: 'invalid_request_error' } },
      });
      expect(await complete(model.baseUrl, 'unknown')).toMatchObject({ status: 400 });
      expect(model.requests.map((request) => request.reply)).toEqual([undefined, undefined]);
      const models = await fetch(`${model.baseUrl}/models`);
      expect(models.status).toBe(404);
      await models.arrayBuffer();
    } finally {
      await model.stop();
    }
  });
});

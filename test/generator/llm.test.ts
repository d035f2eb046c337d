/**
 * The OpenAI-compatible adapter against a real HTTP server on loopback that speaks the chat-completions protocol:
 * good, malformed, invalid, slow and refusing answers.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { generatorFromEnv } from '../../functions/generator/index.ts';
import { ChatCompletions, LlmPlanner, LlmWriter } from '../../functions/generator/llm.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { GeneratorBusy, GeneratorFailed } from '../../functions/core/generator.ts';
import { extrasOf } from '../../functions/core/pricing.ts';
import { EXTRAS_LABELLED } from '../unit/extras-labelled.ts';

type Reply = { status?: number; content?: string; raw?: string; delayMs?: number };
const replies: Reply[] = [];
const requests: { headers: IncomingMessage['headers']; body: any }[] = [];
let server: Server;
let baseUrl: string;

before(async () => {
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    requests.push({ headers: req.headers, body: JSON.parse(body) });
    const r = replies.shift() ?? { status: 500 };
    if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs));
    if (res.destroyed) return;
    res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
    res.end(
      r.raw ?? JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: r.content ?? '' } }] }),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const llm = () => new ChatCompletions({ baseUrl, model: 'test-model', apiKey: 'sk-test', timeoutMs: 500 });
const scenes = (n: number) => Array.from({ length: n }, (_, i) => ({ caption: `Scene ${i + 1}`, voiceover: `Line ${i + 1}.`, visual: 'light' }));
const goodScript = { scenes: scenes(5), title: 'Green tea', description: 'All about tea.', hashtags: ['#tea', '#shorts'] };
const params = createVideoBody.parse({ topic: 'Green tea', duration_seconds: 20 });

describe('OpenAI-compatible writer', () => {
  it('sends a chat-completions request and turns a valid answer into a timed script', async () => {
    replies.push({ content: JSON.stringify(goodScript) });
    const script = await new LlmWriter(llm()).write({ params });
    assert.equal(script.scenes.length, 5);
    assert.ok(Math.abs(script.scenes.reduce((a, b) => a + b.seconds, 0) - 20) < 0.05);
    assert.deepEqual(script.pack, { title: 'Green tea', description: 'All about tea.', hashtags: ['#tea', '#shorts'] });
    const sent = requests.at(-1)!;
    assert.equal(sent.headers.authorization, 'Bearer sk-test');
    assert.equal(sent.body.model, 'test-model');
    assert.deepEqual(
      sent.body.messages.map((m: { role: string }) => m.role),
      ['system', 'user'],
    );
    assert.equal(JSON.parse(sent.body.messages[1].content).topic, 'Green tea');
  });

  it('accepts JSON wrapped in a code fence', async () => {
    replies.push({ content: `\`\`\`json\n${JSON.stringify(goodScript)}\n\`\`\`` });
    assert.equal((await new LlmWriter(llm()).write({ params })).scenes.length, 5);
  });

  it('treats malformed, invalid and slow answers, 429 and 5xx as failures that may pass', async () => {
    for (const reply of [
      { content: 'Sure! Here is your script: scene one...' },
      { raw: '<html>oops</html>' },
      { content: JSON.stringify({ ...goodScript, scenes: scenes(2) }) },
      { content: JSON.stringify({ ...goodScript, hashtags: ['tea'] }) },
      { delayMs: 1500, content: JSON.stringify(goodScript) },
      { status: 429, raw: '{"error":{"message":"rate limit"}}' },
      { status: 503, raw: '{}' },
    ] satisfies Reply[]) {
      replies.push(reply);
      await assert.rejects(new LlmWriter(llm()).write({ params }), GeneratorBusy, JSON.stringify(reply).slice(0, 60));
    }
  });

  it('treats any other refusal as lasting', async () => {
    replies.push({ status: 400, raw: '{"error":{"message":"bad request"}}' });
    await assert.rejects(new LlmWriter(llm()).write({ params }), GeneratorFailed);
  });

  it('sends the previous script and the note on regen', async () => {
    replies.push({ content: JSON.stringify(goodScript) });
    const previous = await new LlmWriter(llm()).write({ params: params }).catch(() => undefined);
    assert.ok(previous);
    replies.push({ content: JSON.stringify(goodScript) });
    await new LlmWriter(llm()).write({ params, regen: { note: 'shorter, please', previous } });
    const brief = JSON.parse(requests.at(-1)!.body.messages[1].content);
    assert.equal(brief.change_request, 'shorter, please');
    assert.equal(brief.previous_script.length, 5);
  });
});

describe('OpenAI-compatible planner', () => {
  it('takes topic, tone and duration from the model but keeps the paid extras of the embedded plan', async () => {
    const prompt = 'cats with a song';
    replies.push({
      content: JSON.stringify({ topic: 'Cats being cats', duration_seconds: 25, language: 'en', tone: 'funny', music: 'none', ai_visual: true }),
    });
    const p = await new LlmPlanner(llm(), planFromPrompt).plan(prompt);
    assert.equal(p.topic, 'Cats being cats');
    assert.equal(p.duration_seconds, 25);
    assert.equal(p.tone, 'funny');
    assert.equal(p.music, 'song', 'the paid extra stays');
    assert.equal(p.ai_visual, false, 'no unpaid extra appears');
  });

  it('plans a paid extra only where the prompt asks for it, whatever the model answers', async () => {
    const planner = new LlmPlanner(llm(), planFromPrompt);
    const every = { music: 'song', voice: 'clone', ai_visual: true, placement: { product: 'Gadget' } };
    const none = { music: 'none', voice: 'standard', ai_visual: false };
    for (const l of EXTRAS_LABELLED) {
      replies.push({ content: JSON.stringify({ topic: l.prompt, ...(l.extras.length ? none : every) }) });
      const p = await planner.plan(l.prompt);
      assert.equal(requests.at(-1)!.body.messages[1].content, l.prompt);
      assert.deepEqual(extrasOf(p).sort(), [...l.extras].sort(), l.prompt);
      assert.equal(p.topic, l.prompt, "the topic is the model's");
    }
  });

  it('is chosen by configuration', () => {
    assert.ok(generatorFromEnv({ GENERATOR_LLM_URL: baseUrl }).writer instanceof LlmWriter);
    assert.ok(!(generatorFromEnv({}).writer instanceof LlmWriter));
  });
});

/**
 * GENERATOR_FAIL: a stage fails for every order; random:<rate> a share of orders, each at one stage, the same way every
 * time it is asked; crash makes every render crash instead. Read at each call.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newOrderId } from '../../functions/core/ids.ts';
import { generatorFault } from '../../functions/adapters/config.ts';
import { failsAt, RENDER_CRASH, withFaults } from '../../functions/app/faults.ts';
import { GeneratorFailed, type Generator } from '../../functions/core/generator.ts';

describe('generator faults', () => {
  it('a fixed stage fails every order at that stage only', () => {
    const id = newOrderId();
    assert.deepEqual(
      (['plan', 'script', 'render'] as const).map((s) => failsAt('render', id, s)),
      [false, false, true],
    );
    assert.equal(failsAt(undefined, id, 'render'), false);
  });

  it('a rate fails about that share of orders, each at script or render, and answers the same when asked again', () => {
    const ids = Array.from({ length: 4000 }, newOrderId);
    const stages = ids.map((id) => (['plan', 'script', 'render'] as const).filter((s) => failsAt({ rate: 0.25 }, id, s)));
    const failed = stages.filter((s) => s.length > 0);
    assert.ok(failed.length > 850 && failed.length < 1150, `${failed.length} of 4000`);
    assert.ok(failed.every((s) => s.length === 1 && s[0] !== 'plan'));
    assert.ok(failed.some((s) => s[0] === 'script') && failed.some((s) => s[0] === 'render'));
    assert.deepEqual(
      ids.map((id) => failsAt({ rate: 0.25 }, id, 'render')),
      ids.map((id) => failsAt({ rate: 0.25 }, id, 'render')),
    );
    assert.equal(ids.filter((id) => failsAt({ rate: 0 }, id, 'render') || failsAt({ rate: 0 }, id, 'script')).length, 0);
    assert.equal(ids.filter((id) => failsAt({ rate: 1 }, id, 'render') || failsAt({ rate: 1 }, id, 'script')).length, 4000);
  });

  it('crash makes every render throw what Lambda reports for a process that died, read at each call', async () => {
    const rendered: string[] = [];
    const generator = {
      planner: { plan: async () => ({}) },
      writer: { write: async () => ({}) },
      renderer: { render: async (req: { orderId: string }) => void rendered.push(req.orderId) },
    } as unknown as Generator;
    let now: ReturnType<typeof generatorFault>;
    const wrapped = withFaults(generator, () => now);
    const render = () => wrapped.renderer.render({ orderId: newOrderId() } as never);
    now = 'crash';
    await assert.rejects(render(), (err: Error) => err.name === RENDER_CRASH && !(err instanceof GeneratorFailed));
    await wrapped.planner.plan('a prompt', { orderId: newOrderId() } as never);
    assert.equal(failsAt('crash', newOrderId(), 'render'), false, 'a crash is not a failed generation');
    now = undefined;
    await render();
    now = 'render';
    await assert.rejects(render(), GeneratorFailed);
    assert.equal(rendered.length, 1);
    assert.equal(generatorFault('crash'), 'crash');
    assert.throws(() => generatorFault('crashes'), /GENERATOR_FAIL must be plan, script, render, crash/);
  });

  it("crash-once crashes each order's first render only, as a render killed mid-way and tried again", async () => {
    const rendered: string[] = [];
    const generator = { renderer: { render: async (req: { orderId: string }) => void rendered.push(req.orderId) } } as unknown as Generator;
    const wrapped = withFaults(generator, () => generatorFault('crash-once'));
    const [a, b] = [newOrderId(), newOrderId()];
    const render = (orderId: string) => wrapped.renderer.render({ orderId } as never);
    await assert.rejects(render(a), (err: Error) => err.name === RENDER_CRASH);
    await assert.rejects(render(b), (err: Error) => err.name === RENDER_CRASH);
    await render(a);
    await render(b);
    await render(a);
    assert.deepEqual(rendered, [a, b, a]);
    assert.equal(failsAt('crash-once', a, 'render'), false, 'a crash is not a failed generation');
  });
});

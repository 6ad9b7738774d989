/**
 * What the register opens on, by the store's service style (checks/service-style.ts): the counter (retail, as
 * before), the floor (restaurant), or both with a clear switch between them — the counter stays mounted behind the
 * floor, so a cart rung up is still there when the cashier switches back.
 */
import { useState } from 'react';
import { useObservable } from '../../ui/hooks.ts';
import { serviceStyle$ } from '../checks/service-style.ts';
import { FloorView } from './floor-view.tsx';
import { RegisterView } from './register-view.tsx';

export function ServiceView() {
  const style = useObservable(serviceStyle$, serviceStyle$.value);
  const [side, setSide] = useState<'counter' | 'floor'>('floor');
  if (style === 'retail') return <RegisterView />;
  if (style === 'restaurant') return <FloorView />;
  return (
    <>
      <div className="service-switch" role="group" aria-label="Counter or floor">
        {(['floor', 'counter'] as const).map((key) => (
          <button
            key={key}
            type="button"
            className={`button service-switch-${key}`}
            aria-pressed={side === key}
            onClick={() => setSide(key)}
            data-testid={`service-${key}`}
          >
            {key === 'floor' ? 'Floor' : 'Counter'}
          </button>
        ))}
      </div>
      <div className="service-side" hidden={side !== 'counter'}>
        <RegisterView />
      </div>
      {side === 'floor' ? <FloorView /> : null}
    </>
  );
}

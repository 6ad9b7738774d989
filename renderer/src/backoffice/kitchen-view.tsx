/**
 * Back office → Kitchen: the store's stations (id — the display's address, /kitchen/<id> — and name), where each
 * catalog category goes, items routed on their own (to a station, or not prepared), the default station, and the
 * ticket age thresholds of the displays (amber after N minutes, red after M). Saved whole
 * (`PUT /api/pos/kitchen/setup`) from the version it was opened at: when someone saved in between the server refuses
 * (409) and the screen offers to reload. The rules are checked as you edit with the server's own function (core
 * `kitchenSetupIssues`). Registers read the routing (`GET /api/register/kitchen`) to print each station's tickets.
 */
import { useEffect, useMemo, useState } from 'react';
import { kitchenSetupIssues, type KitchenSetup, type KitchenSetupUpdate } from '../../../core/index.ts';
import { ApiError, errorMessage } from '../common/back-office-api.ts';
import { LoadError } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';

const NOT_PREPARED = '__not_prepared__';

function updateOf(setup: KitchenSetup): KitchenSetupUpdate {
  const { updatedAt: _u, ...update } = setup;
  return update;
}

export function KitchenView() {
  const setup = useBackOfficeData('kitchen-setup', [], (api) => api.request<KitchenSetup>('GET', '/api/pos/kitchen/setup'));
  const categories = useBackOfficeData('kitchen-categories', [], (api) => api.categories());
  const actions = useBackOfficeActions(['kitchen-setup']);
  const [draft, setDraft] = useState<KitchenSetupUpdate | undefined>();
  const [itemNames, setItemNames] = useState<Record<string, string>>({});
  const [search, setSearch] = useState('');
  const found = useBackOfficeData('kitchen-item-search', [search], (api) => api.listItems({ q: search, limit: 8 }), {
    enabled: search.trim().length > 1,
  });
  const [stale, setStale] = useState(false);
  const saved = setup.data;

  useEffect(() => {
    if (!saved) return;
    setDraft(updateOf(saved));
    setStale(false);
  }, [saved]);

  const issues = useMemo(() => (draft ? kitchenSetupIssues(draft) : []), [draft]);
  if (setup.error) return <LoadError error={setup.error} what="The kitchen set-up" />;
  if (!saved || !draft) return <p className="muted">Loading the kitchen set-up…</p>;
  const changed = JSON.stringify(draft) !== JSON.stringify(updateOf(saved));
  const edit = (patch: Partial<KitchenSetupUpdate>) => setDraft({ ...draft, ...patch });
  const stationOptions = draft.stations.map((s) => (
    <option key={s.id} value={s.id}>
      {s.name || s.id}
    </option>
  ));

  const save = async () => {
    setStale(false);
    await actions.run(
      (api) => api.request<KitchenSetup>('PUT', '/api/pos/kitchen/setup', draft),
      (err) => {
        if (err instanceof ApiError && err.status === 409) setStale(true);
        return errorMessage(err);
      },
    );
  };
  const routeItem = (itemId: string, value: string) => {
    const byItem = { ...draft.byItem };
    delete byItem[itemId];
    const notPrepared = draft.notPrepared.filter((id) => id !== itemId);
    if (value === NOT_PREPARED) notPrepared.push(itemId);
    else if (value !== '') byItem[itemId] = value;
    edit({ byItem, notPrepared });
  };
  const routedItems = [...new Set([...Object.keys(draft.byItem), ...draft.notPrepared])];

  return (
    <section className="bo-section" data-testid="kitchen-setup">
      <div className="bo-toolbar">
        <h2>Kitchen</h2>
        {changed ? <span className="bo-tag">Unsaved changes</span> : null}
        <button type="button" className="button button-ghost" disabled={!changed || actions.pending} onClick={() => setDraft(updateOf(saved))}>
          Discard changes
        </button>
        <button
          type="button"
          className="button button-primary"
          disabled={!changed || issues.length > 0 || actions.pending}
          onClick={() => void save()}
        >
          {actions.pending ? 'Saving…' : 'Save kitchen set-up'}
        </button>
      </div>
      {actions.error ? (
        <div className="form-error" role="alert">
          <p>{actions.error}</p>
          {stale ? (
            <button type="button" className="button" onClick={() => void setup.refresh()}>
              Reload the saved set-up
            </button>
          ) : null}
        </div>
      ) : null}
      {issues.length > 0 ? (
        <ul className="form-error" role="alert" aria-label="Problems to fix before saving">
          {issues.map((i) => (
            <li key={i.path}>
              {i.path} {i.message}
            </li>
          ))}
        </ul>
      ) : null}

      <fieldset className="bo-panel">
        <legend>Stations</legend>
        {draft.stations.length === 0 ? (
          <p className="muted">No stations yet. Add one for each screen or printer in the kitchen (grill, cold, bar…).</p>
        ) : null}
        {draft.stations.map((s, i) => (
          <div key={i} className="bo-row" role="group" aria-label={`Station ${i + 1}`}>
            <label className="bo-field">
              Id
              <input
                className="bo-input"
                value={s.id}
                disabled={saved.stations.some((k) => k.id === s.id) && i < saved.stations.length && saved.stations[i]?.id === s.id}
                onChange={(e) => edit({ stations: draft.stations.map((x, j) => (j === i ? { ...x, id: e.target.value.toLowerCase() } : x)) })}
              />
            </label>
            <label className="bo-field">
              Name
              <input
                className="bo-input"
                value={s.name}
                onChange={(e) => edit({ stations: draft.stations.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)) })}
              />
            </label>
            {s.id ? (
              <a className="button button-link" href={`/kitchen/${encodeURIComponent(s.id)}`} target="_blank" rel="noreferrer">
                Open its display
              </a>
            ) : null}
            <button type="button" className="button bo-danger" onClick={() => edit({ stations: draft.stations.filter((_, j) => j !== i) })}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" className="button" onClick={() => edit({ stations: [...draft.stations, { id: '', name: '' }] })}>
          + Add station
        </button>
      </fieldset>

      <fieldset className="bo-panel">
        <legend>Ticket times</legend>
        <label className="bo-field">
          Amber after (minutes)
          <input
            className="bo-input"
            type="number"
            min={1}
            max={240}
            value={draft.warnAfterMinutes}
            onChange={(e) => edit({ warnAfterMinutes: Number(e.target.value) })}
          />
        </label>
        <label className="bo-field">
          Red after (minutes)
          <input
            className="bo-input"
            type="number"
            min={1}
            max={240}
            value={draft.lateAfterMinutes}
            onChange={(e) => edit({ lateAfterMinutes: Number(e.target.value) })}
          />
        </label>
      </fieldset>

      <fieldset className="bo-panel">
        <legend>Routing</legend>
        <label className="bo-field">
          Default station (everything not routed below)
          <select className="bo-input" value={draft.defaultStationId ?? ''} onChange={(e) => edit({ defaultStationId: e.target.value || null })}>
            <option value="">None: not sent to the kitchen</option>
            {stationOptions}
          </select>
        </label>
        <h3>By category</h3>
        {(categories.data?.data ?? []).length === 0 ? <p className="muted">No categories in the catalog.</p> : null}
        {(categories.data?.data ?? []).map((c) => (
          <label key={c.name} className="bo-field">
            {c.name} ({c.itemCount})
            <select
              className="bo-input"
              value={draft.byCategory[c.name] ?? ''}
              onChange={(e) => {
                const byCategory = { ...draft.byCategory };
                if (e.target.value) byCategory[c.name] = e.target.value;
                else delete byCategory[c.name];
                edit({ byCategory });
              }}
            >
              <option value="">Default station</option>
              {stationOptions}
            </select>
          </label>
        ))}
        <h3>Items on their own</h3>
        {routedItems.map((id) => (
          <label key={id} className="bo-field">
            {itemNames[id] ?? id}
            <select
              className="bo-input"
              value={draft.notPrepared.includes(id) ? NOT_PREPARED : (draft.byItem[id] ?? '')}
              onChange={(e) => routeItem(id, e.target.value)}
            >
              <option value="">As its category (remove)</option>
              <option value={NOT_PREPARED}>Not prepared (no ticket)</option>
              {stationOptions}
            </select>
          </label>
        ))}
        <label className="bo-field">
          Find an item to route on its own
          <input className="bo-input" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name, SKU or barcode" />
        </label>
        {search.trim().length > 1 ? (
          <ul className="bo-list" aria-label="Items found">
            {(found.data?.data ?? [])
              .filter((item) => !routedItems.includes(item.id))
              .map((item) => (
                <li key={item.id}>
                  <button
                    type="button"
                    className="button button-ghost"
                    onClick={() => {
                      setItemNames({ ...itemNames, [item.id]: item.name });
                      routeItem(item.id, draft.defaultStationId ?? draft.stations[0]?.id ?? NOT_PREPARED);
                      setSearch('');
                    }}
                  >
                    {item.name} ({item.category})
                  </button>
                </li>
              ))}
          </ul>
        ) : null}
      </fieldset>
    </section>
  );
}

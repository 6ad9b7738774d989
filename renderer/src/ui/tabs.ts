import type { KeyboardEvent } from 'react';

/**
 * Props of one tab and of its panel for a WAI-ARIA tab list (APG "Tabs with automatic activation"): one Tab stop per
 * list (roving tabindex: only the selected tab is tabbable), ←/→ (and ↑/↓) move to the previous/next enabled tab
 * and select it, Home/End the first/last; each tab names its panel with `aria-controls`, the panel is labelled by
 * its tab.
 *
 * `idPrefix` must be unique on the page (React `useId()` is fine); `keys` are the tabs in order; `onSelect` is called
 * with the key of the tab moved to (the tab also receives focus).
 */
export function tabList<K extends string>(idPrefix: string, keys: readonly K[], selected: K, onSelect: (key: K) => void) {
  const tabId = (key: K) => `${idPrefix}-tab-${keys.indexOf(key)}`;
  // One panel whose content follows the selected tab: every tab controls it, so no `aria-controls` names a missing id.
  const panelId = `${idPrefix}-panel`;

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    const list = event.currentTarget.closest('[role="tablist"]');
    if (!list) return;
    const tabs = [...list.querySelectorAll<HTMLElement>('[role="tab"]')].filter((t) => !t.hasAttribute('disabled'));
    const at = tabs.indexOf(event.currentTarget);
    let next: HTMLElement | undefined;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = tabs[(at + 1) % tabs.length];
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = tabs[(at - 1 + tabs.length) % tabs.length];
    else if (event.key === 'Home') next = tabs[0];
    else if (event.key === 'End') next = tabs[tabs.length - 1];
    if (!next) return;
    event.preventDefault();
    next.focus();
    const key = keys.find((k) => tabId(k) === next.id);
    if (key !== undefined) onSelect(key);
  };

  return {
    /** Spread on each tab button. */
    tab: (key: K) => ({
      role: 'tab' as const,
      id: tabId(key),
      'aria-selected': key === selected,
      'aria-controls': panelId,
      tabIndex: key === selected ? 0 : -1,
      onKeyDown,
      onClick: () => onSelect(key),
    }),
    /** Spread on the tab panel (one element, showing the selected tab's content). */
    panel: () => ({ role: 'tabpanel' as const, id: panelId, 'aria-labelledby': tabId(selected) }),
  };
}

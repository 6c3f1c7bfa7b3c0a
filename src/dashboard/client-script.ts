/**
 * The page's only script: follow `/dashboard/events` and, on each `change`, fetch the page's
 * fragment and swap `#content`. The fragment is server-rendered and escaped like the page.
 * EventSource reconnects by itself; `since` makes the server answer at once when the page is
 * already stale, so no change between rendering and connecting is lost.
 */
export const DASHBOARD_SCRIPT = `
(function () {
  'use strict';
  var body = document.body;
  var live = document.getElementById('live');
  var loading = false, again = false, source = null;
  function content() { return document.getElementById('content'); }
  function say(state, text) { body.dataset.live = state; if (live) live.textContent = text; }
  function refresh() {
    if (loading) { again = true; return; }
    loading = true;
    var root = content();
    fetch(root.dataset.fragment, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.text(); })
      .then(function (text) {
        var holder = document.createElement('template');
        holder.innerHTML = text;
        var next = holder.content.getElementById('content');
        if (!next) throw new Error('no #content in the fragment');
        content().replaceWith(next);
        body.dataset.updates = String(Number(body.dataset.updates || '0') + 1);
        say('on', 'live · updated ' + new Date().toLocaleTimeString());
      })
      .catch(function (error) { say('reconnecting', 'update failed: ' + error.message); })
      .then(function () {
        loading = false;
        if (again) { again = false; refresh(); }
      });
  }
  function connect() {
    if (!window.EventSource) { say('off', 'no live updates in this browser'); return; }
    var root = content();
    var url = root.dataset.events + (root.dataset.events.indexOf('?') < 0 ? '?' : '&') +
      'since=' + encodeURIComponent(root.dataset.version || '');
    source = new EventSource(url);
    source.addEventListener('open', function () { say('on', 'live'); });
    source.addEventListener('change', refresh);
    source.addEventListener('error', function () { say('reconnecting', 'reconnecting…'); });
  }
  connect();
})();
`;

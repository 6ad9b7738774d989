/*
 * The app side of the register's message bridge (renderer/src/apps/app-bridge.ts), for in-platform apps:
 *
 *   registerApi('GET', '/api/pos/catalog?limit=5').then(({ status, body }) => …)
 *
 * posts { type: 'register-api', id, method, path, body? } to the register (window.parent) and resolves with the
 * register's { status, body } (status 0: the register could not reach the server). Only GET and POST under /api/pos/
 * are carried; anything else is ignored by the register, so such a call times out (rejects after 30 s).
 */
(function () {
  'use strict';
  var pending = new Map();
  var next = 1;
  window.addEventListener('message', function (event) {
    // Answers come from the register only.
    if (event.source !== window.parent) return;
    var data = event.data;
    if (!data || data.type !== 'register-api-result' || !pending.has(data.id)) return;
    var entry = pending.get(data.id);
    pending.delete(data.id);
    clearTimeout(entry.timer);
    entry.resolve({ status: data.status, body: data.body });
  });

  /**
   * One API call through the register.
   * @param {'GET'|'POST'} method
   * @param {string} path absolute, under /api/pos/
   * @param {unknown} [body] POST only: plain JSON
   * @returns {Promise<{ status: number, body: unknown }>}
   */
  window.registerApi = function (method, path, body) {
    var id = 'req-' + next++;
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        pending.delete(id);
        reject(new Error('The register did not answer ' + method + ' ' + path));
      }, 30000);
      pending.set(id, { resolve: resolve, timer: timer });
      var message = { type: 'register-api', id: id, method: method, path: path };
      if (body !== undefined) message.body = body;
      // The register's origin is not known to a sandboxed document; the register checks who sent the message.
      window.parent.postMessage(message, '*');
    });
  };
})();

/* Shelf labels: lists a few catalog items through the register's bridge and shows what the sandbox refuses. */
(function () {
  'use strict';
  var itemsStatus = document.getElementById('items-status');
  var items = document.getElementById('items');
  var orderResult = document.getElementById('order-result');
  var storageResult = document.getElementById('storage-result');

  function money(cents) {
    return '$' + (cents / 100).toFixed(2);
  }

  function problemText(body) {
    if (body && typeof body === 'object') return (body.code ? body.code + ': ' : '') + (body.detail || body.title || '');
    return String(body || '');
  }

  window.registerApi('GET', '/api/pos/catalog?limit=6').then(
    function (result) {
      if (result.status !== 200) {
        itemsStatus.textContent = 'The catalog could not be read (HTTP ' + result.status + ') ' + problemText(result.body);
        return;
      }
      var list = (result.body && result.body.data) || [];
      itemsStatus.textContent = list.length + ' items read through the bridge (HTTP 200).';
      list.forEach(function (item) {
        var li = document.createElement('li');
        li.className = 'label';
        li.setAttribute('data-testid', 'example-item');
        li.setAttribute('data-item-id', item.id);
        var name = document.createElement('strong');
        name.textContent = item.name;
        var price = document.createElement('span');
        var first = item.variations && item.variations[0];
        price.textContent = first ? money(first.priceCents) : '';
        li.appendChild(name);
        li.appendChild(price);
        items.appendChild(li);
      });
    },
    function (err) {
      itemsStatus.textContent = err.message;
    },
  );

  document.getElementById('try-order').addEventListener('click', function () {
    orderResult.textContent = 'Asking…';
    window.registerApi('POST', '/api/pos/orders', { lines: [] }).then(
      function (result) {
        orderResult.setAttribute('data-status', String(result.status));
        orderResult.textContent = result.status === 403 ? 'Refused (HTTP 403): ' + problemText(result.body) : 'HTTP ' + result.status + ' ' + problemText(result.body);
      },
      function (err) {
        orderResult.textContent = err.message;
      },
    );
  });

  // A sandboxed frame without allow-same-origin has an opaque origin: the register's storage is out of reach.
  try {
    var n = window.localStorage.length;
    storageResult.textContent = 'This frame can read the register\u2019s storage (' + n + ' keys): it is NOT sandboxed.';
    storageResult.setAttribute('data-sandboxed', 'false');
  } catch (err) {
    storageResult.textContent = 'The register\u2019s storage is out of reach (' + (err && err.name) + ').';
    storageResult.setAttribute('data-sandboxed', 'true');
  }
})();

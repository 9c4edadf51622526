/* DecisionPivot report: sortable tables, tooltips, curve highlighting and the data-file loader.
   Plain JavaScript, no library, no network: works from file:// and any static host. */
(function () {
  "use strict";
  var DP = window.DP = window.DP || {};
  var pending = {};
  var loaded = {};

  /* Data files are scripts calling DP.load(name, data) (file:// pages may not fetch JSON). */
  DP.load = function (name, data) {
    loaded[name] = data;
    var waiting = pending[name];
    delete pending[name];
    if (waiting) waiting.forEach(function (w) { w.resolve(data); });
  };

  DP.require = function (name) {
    if (Object.prototype.hasOwnProperty.call(loaded, name)) return Promise.resolve(loaded[name]);
    return new Promise(function (resolve, reject) {
      if (pending[name]) { pending[name].push({ resolve: resolve, reject: reject }); return; }
      pending[name] = [{ resolve: resolve, reject: reject }];
      var tag = document.createElement("script");
      tag.src = document.body.getAttribute("data-root") + "data/" + name + ".js";
      tag.onerror = function () {
        var waiting = pending[name] || [];
        delete pending[name];
        waiting.forEach(function (w) { w.reject(new Error("could not load data/" + name + ".js")); });
      };
      document.head.appendChild(tag);
    });
  };

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) return "";
    var sort = cell.getAttribute("data-sort");
    return sort !== null ? sort : cell.textContent.trim();
  }

  function compare(a, b) {
    if (a === "" && b === "") return 0;
    if (a === "") return 1; /* undefined values last */
    if (b === "") return -1;
    var x = parseFloat(a), y = parseFloat(b);
    if (!isNaN(x) && !isNaN(y) && String(x) !== "NaN" && /^-?[0-9.]+(e-?[0-9]+)?$/.test(a) &&
        /^-?[0-9.]+(e-?[0-9]+)?$/.test(b)) return x - y;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var descending = th.getAttribute("aria-sort") !== "descending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var rows = Array.prototype.slice.call(body.rows);
    var pinned = rows.filter(function (r) { return r.classList.contains("pinned"); });
    var moving = rows.filter(function (r) { return !r.classList.contains("pinned"); });
    moving.sort(function (r1, r2) {
      var a = cellValue(r1, index), b = cellValue(r2, index);
      if (a === "" || b === "") return compare(a, b);
      var order = compare(a, b);
      return descending ? -order : order;
    });
    moving.concat(pinned).forEach(function (r) { body.appendChild(r); });
  }

  function makeSortable(table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) return;
    Array.prototype.forEach.call(head.cells, function (th, index) {
      var label = th.textContent;
      if (!label) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.textContent = label;
      button.setAttribute("aria-label", "Sort by " + label);
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, index, th); });
    });
  }

  var tip = null;
  function showTip(target, x, y) {
    var text = target.getAttribute("data-tip");
    if (!text) return;
    if (!tip) {
      tip = document.createElement("div");
      tip.id = "tooltip";
      tip.setAttribute("role", "tooltip");
      document.body.appendChild(tip);
    }
    tip.textContent = text;
    tip.hidden = false;
    var left = Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = Math.max(4, left) + "px";
    tip.style.top = Math.max(4, y + 14) + "px";
  }
  function hideTip() { if (tip) tip.hidden = true; }
  DP.tooltips = function (root) {
    root.addEventListener("mouseover", function (event) {
      var target = event.target.closest && event.target.closest("[data-tip]");
      if (target) showTip(target, event.clientX, event.clientY); else hideTip();
    });
    root.addEventListener("mousemove", function (event) {
      var target = event.target.closest && event.target.closest("[data-tip]");
      if (target && tip && !tip.hidden) showTip(target, event.clientX, event.clientY);
    });
    root.addEventListener("mouseleave", hideTip);
    root.addEventListener("focusin", function (event) {
      var target = event.target.closest && event.target.closest("[data-tip]");
      if (target) { var r = target.getBoundingClientRect(); showTip(target, r.left, r.bottom); }
    });
    root.addEventListener("focusout", hideTip);
  };

  function highlight(figure, system) {
    figure.querySelectorAll(".curve").forEach(function (curve) {
      var mine = curve.getAttribute("data-system") === system;
      curve.classList.toggle("highlight", system !== null && mine);
      curve.classList.toggle("dim", system !== null && !mine);
      if (mine && system !== null) curve.parentNode.appendChild(curve); /* draw it on top */
    });
  }
  function highlightable(figure) {
    var pinned = null;
    figure.querySelectorAll("button.key").forEach(function (button) {
      var system = button.getAttribute("data-system");
      button.setAttribute("aria-pressed", "false");
      button.addEventListener("mouseenter", function () { highlight(figure, system); });
      button.addEventListener("focus", function () { highlight(figure, system); });
      button.addEventListener("mouseleave", function () { highlight(figure, pinned); });
      button.addEventListener("blur", function () { highlight(figure, pinned); });
      button.addEventListener("click", function () {
        pinned = pinned === system ? null : system;
        figure.querySelectorAll("button.key").forEach(function (b) {
          b.setAttribute("aria-pressed", String(b.getAttribute("data-system") === pinned));
        });
        highlight(figure, pinned);
      });
    });
    figure.querySelectorAll(".curve").forEach(function (curve) {
      curve.addEventListener("mouseenter", function () { highlight(figure, curve.getAttribute("data-system")); });
      curve.addEventListener("mouseleave", function () { highlight(figure, pinned); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table.sortable").forEach(makeSortable);
    document.querySelectorAll("figure.highlightable").forEach(highlightable);
    DP.tooltips(document.body);
  });
})();

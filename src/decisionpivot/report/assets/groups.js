/* DecisionPivot report: the contrast-group browser.
   The URL hash holds the whole state (family, level, filter, systems A and B, the open group or item), so
   every view has a link: groups.html#item=fact_answerable:00007 opens that item's group. */
(function () {
  "use strict";
  var DP = window.DP;
  var PAGE = 100;
  var state = {};
  var index = null;      /* the loaded family index */
  var offsets = null;    /* per item: position of its first probability in the per-mille strings */
  var shown = PAGE;
  var $ = function (id) { return document.getElementById(id); };

  function parseHash() {
    var out = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      if (!part) return;
      var at = part.indexOf("=");
      var key = decodeURIComponent(at < 0 ? part : part.slice(0, at));
      out[key] = at < 0 ? "" : decodeURIComponent(part.slice(at + 1));
    });
    return out;
  }

  function hashOf(s) {
    var keys = ["family", "level", "filter", "a", "b", "group", "item"];
    return "#" + keys.filter(function (k) { return s[k]; }).map(function (k) {
      return k + "=" + encodeURIComponent(s[k]).replace(/%3A/g, ":");
    }).join("&");
  }

  function go(changes) {
    var next = Object.assign({}, state, changes);
    var hash = hashOf(next);
    if (hash === location.hash) apply(); else location.hash = hash;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  function status(text) { $("status").textContent = text; }

  function probabilities(system, item) {
    var code = index.p[system], keys = index.items[item].keys, out = [];
    for (var k = 0; k < keys.length; k++) {
      var at = 2 * (offsets[item] + k);
      out.push(parseInt(code.substr(at, 2), 36) / 1000);
    }
    return out;
  }

  function solved(group, system) {
    var flags = index.correct[system];
    return group.members.every(function (m) { return flags.charAt(m) === "1"; });
  }

  function solvedBy(group) {
    return index.systems.filter(function (s) { return solved(group, s); }).length;
  }

  function matches(group, g) {
    if (state.level && String(group.level) !== state.level) return false;
    var a = state.a, b = state.b;
    switch (state.filter || "all") {
      case "ab": return solved(group, a) && !solved(group, b);
      case "none": return solvedBy(group) === 0;
      case "direction": return group.binary && index.direction[a].charAt(g) === "1" && !solved(group, a);
      case "fails": return !solved(group, a);
      default: return true;
    }
  }

  function fillSystems(select, chosen) {
    select.textContent = "";
    index.systems.forEach(function (s) { select.appendChild(el("option", { value: s, text: s })); });
    select.value = chosen;
  }

  function renderList() {
    var list = $("group-list");
    list.textContent = "";
    var hits = [];
    index.groups.forEach(function (group, g) { if (matches(group, g)) hits.push(g); });
    hits.slice(0, shown).forEach(function (g) {
      var group = index.groups[g];
      var link = el("a", { href: hashOf(Object.assign({}, state, { group: group.id, item: "" })) }, [
        group.id.split(":")[1] + " \u00b7 level " + group.level,
        el("span", { "class": "solved", text: "solved " + solvedBy(group) + "/" + index.systems.length })
      ]);
      if (state.group === group.id) link.setAttribute("aria-current", "true");
      link.addEventListener("click", function () { wantFocus = true; });
      list.appendChild(el("li", {}, [link]));
    });
    var more = $("more");
    more.hidden = hits.length <= shown;
    $("list-heading").textContent = hits.length + " of " + index.groups.length + " groups";
    var filterText = $("filter").selectedOptions[0].textContent.replace("system A", state.a).replace(/ B$/, " " + state.b);
    status(index.family + ": " + hits.length + " of " + index.groups.length + " groups match (" +
      (state.level ? "level " + state.level : "all levels") + ", " + filterText + ")");
    return hits;
  }

  var wantFocus = false;

  function renderMarks(text, marks) {
    var pre = el("pre", { tabindex: "0" });
    var at = 0;
    marks.forEach(function (m) {
      if (m[0] > at) pre.appendChild(document.createTextNode(text.slice(at, m[0])));
      pre.appendChild(el("mark", { "class": "diff", text: text.slice(m[0], m[1]) }));
      at = m[1];
    });
    if (at < text.length) pre.appendChild(document.createTextNode(text.slice(at)));
    return pre;
  }

  function itemLink(id) {
    return el("a", { href: hashOf({ family: state.family, item: id }), "class": "item-id", text: id });
  }

  function decisiveBox(info, group, texts) {
    var box = el("div", { "class": "decisive", role: "note" });
    box.appendChild(el("p", {}, [el("strong", { text: "Decisive variation. " }), texts.note]));
    if (!info) return box;
    var paths = el("p", {}, ["Declared decisive paths: "]);
    info.paths.forEach(function (p, i) {
      if (i) paths.appendChild(document.createTextNode(", "));
      paths.appendChild(el("code", { text: p }));
    });
    box.appendChild(paths);
    if (info.values.length) {
      var head = el("tr", {}, [el("th", { scope: "col", text: "Case value" })].concat(group.members.map(function (m) {
        return el("th", { scope: "col", text: index.items[m].id });
      })));
      var rows = info.values.map(function (v) {
        return el("tr", {}, [el("th", { scope: "row" }, [el("code", { text: v[0] })])].concat(v[1].map(function (x) {
          return el("td", { text: x });
        })));
      });
      box.appendChild(el("table", { "class": "data" }, [el("caption", { text: "What the generator changed" }),
        el("thead", {}, [head]), el("tbody", {}, rows)]));
    }
    return box;
  }

  function probabilityTable(group, g) {
    var head = [el("th", { scope: "col", text: "System" })];
    group.members.forEach(function (m) {
      head.push(el("th", { scope: "col", text: index.items[m].id + " (gold " +
        index.items[m].keys[index.items[m].gold] + ")" }));
    });
    head.push(el("th", { scope: "col", text: "Group solved" }));
    if (group.binary) head.push(el("th", { scope: "col", text: "Direction (p+ > p-)" }));
    var rows = index.systems.map(function (s) {
      var cells = [el("th", { scope: "row", text: s })];
      group.members.forEach(function (m) {
        var item = index.items[m], flag = index.correct[s].charAt(m), p = probabilities(s, m);
        var best = 0;
        p.forEach(function (v, k) { if (v > p[best]) best = k; });
        var parts = item.keys.map(function (key, k) {
          var text = key + " " + p[k].toFixed(3);
          return k === best && flag !== "f" ? el("strong", { text: text }) : document.createTextNode(text);
        });
        var content = [];
        parts.forEach(function (part, k) { if (k) content.push(" \u00b7 "); content.push(part); });
        if (flag === "f") content.push(" (failed: scored wrong)");
        cells.push(el("td", { "class": flag === "1" ? "cell-right" : "cell-wrong" }, content));
      });
      var ok = solved(group, s);
      cells.push(el("td", { "class": ok ? "right" : "wrong", text: ok ? "\u2713 solved" : "\u2717 not solved" }));
      if (group.binary) {
        var d = index.direction[s].charAt(g) === "1";
        cells.push(el("td", { "class": d ? "right" : "wrong", text: d ? "\u2713 right" : "\u2717 wrong" }));
      }
      return el("tr", {}, cells);
    });
    return el("div", { "class": "scroll" }, [el("table", { "class": "data probabilities" }, [
      el("caption", { text: "Every system's probabilities for every member (bold: the predicted option; green: " +
        "right, red: wrong)" }), el("thead", {}, [el("tr", {}, head)]), el("tbody", {}, rows)])]);
  }

  function renderGroup(g, target) {
    var group = index.groups[g];
    $("group-list").querySelectorAll("a").forEach(function (a) {
      if (a.getAttribute("href").indexOf("group=" + encodeURIComponent(group.id).replace(/%3A/g, ":")) >= 0) {
        a.setAttribute("aria-current", "true");
      } else { a.removeAttribute("aria-current"); }
    });
    var view = $("group-view");
    return DP.require("items/" + index.family + "-" + group.chunk).then(function (texts) {
      view.textContent = "";
      var variations = group.members.map(function (m) { return index.items[m].variation; }).filter(Boolean);
      view.appendChild(el("h2", { id: "group-heading", text: "Group " + group.id }));
      view.appendChild(el("p", {}, ["Level " + group.level + (variations.length ? " \u00b7 variation " +
        variations.join(", ") : "") + " \u00b7 solved by " + solvedBy(group) + " of " + index.systems.length +
        " systems \u00b7 " + group.members.length + " members"]));
      view.appendChild(decisiveBox(texts.decisive[group.id], group, texts));
      var members = el("div", { "class": "members" });
      group.members.forEach(function (m, position) {
        var item = index.items[m], text = texts.items[item.id];
        var box = el("article", { "class": "member" + (item.id === target ? " target" : ""), id: "member-" + position,
          "aria-label": "Member " + (position + 1) + ": " + item.id });
        box.appendChild(el("h3", {}, ["Member " + (position + 1) + ": ", itemLink(item.id)]));
        box.appendChild(el("p", {}, [
          "Gold: ", el("span", { "class": "gold", text: item.keys[item.gold] }),
          item.variation ? " \u00b7 variation " + item.variation : "",
          text.domain ? " \u00b7 domain " + text.domain : ""]));
        box.appendChild(renderMarks(text.state, text.marks));
        box.appendChild(el("p", {}, [el("strong", { text: "Question: " }), text.question]));
        var options = el("ul", { "class": "options" });
        text.options.forEach(function (o) {
          var gold = o[0] === item.keys[item.gold];
          options.appendChild(el("li", {}, [el("code", { text: o[0] }), ": " + o[1],
            gold ? el("span", { "class": "gold", text: " \u2190 gold" }) : null]));
        });
        box.appendChild(options);
        members.appendChild(box);
      });
      view.appendChild(members);
      view.appendChild(el("h3", { text: "Systems on this group" }));
      view.appendChild(probabilityTable(group, g));
      view.querySelectorAll(".member pre").forEach(function (pre) {
        var mark = pre.querySelector("mark.diff"); /* show the difference, not the state's first lines */
        if (mark) pre.scrollTop = Math.max(0, mark.offsetTop - 48);
      });
      if (target) {
        var chosen = view.querySelector(".member.target");
        if (chosen && chosen.scrollIntoView) chosen.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
      if (wantFocus) { view.focus(); wantFocus = false; }
    }, function (error) {
      view.textContent = "";
      view.appendChild(el("h2", { id: "group-heading", text: "Group " + group.id }));
      view.appendChild(el("p", { "class": "wrong", text: error.message }));
    });
  }

  function apply() {
    var wanted = parseHash();
    if (wanted.item && !wanted.family) wanted.family = wanted.item.split(":")[0];
    var families = Array.prototype.map.call($("family").options, function (o) { return o.value; });
    if (families.indexOf(wanted.family) < 0) wanted.family = families[0];
    var sameFamily = index && index.family === wanted.family;
    if (!sameFamily) status("Loading " + wanted.family + "\u2026");
    return DP.require("family/" + wanted.family).then(function (data) {
      if (!sameFamily) {
        index = data;
        offsets = [];
        var total = 0;
        index.items.forEach(function (item) { offsets.push(total); total += item.keys.length; });
        shown = PAGE;
      }
      state = wanted;
      if (index.systems.indexOf(state.a) < 0) state.a = index.systems[0] || "";
      if (index.systems.indexOf(state.b) < 0) state.b = index.systems[index.systems.length > 1 ? 1 : 0] || "";
      $("family").value = state.family;
      $("level").value = state.level || "";
      $("filter").value = state.filter || "all";
      fillSystems($("system-a"), state.a);
      fillSystems($("system-b"), state.b);
      var target = "", g = -1;
      if (state.item) {
        var position = index.items.findIndex(function (item) { return item.id === state.item; });
        if (position < 0) { status("No item " + state.item + " in " + state.family); return; }
        g = index.groups.findIndex(function (group) { return group.members.indexOf(position) >= 0; });
        target = state.item;
        state.group = index.groups[g].id;
      } else if (state.group) {
        g = index.groups.findIndex(function (group) { return group.id === state.group; });
      }
      var hits = renderList();
      if (state.group && g < 0) status("No group " + state.group + " in " + state.family);
      if (g < 0 && hits.length) g = hits[0]; /* nothing asked for: open the first group that matches */
      if (g >= 0) return renderGroup(g, target);
    }, function (error) { status(error.message); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    ["family", "level", "filter", "system-a", "system-b"].forEach(function (id) {
      $(id).addEventListener("change", function () {
        var change = {};
        change[{ "system-a": "a", "system-b": "b" }[id] || id] = $(id).value;
        if (id === "family") { change.group = ""; change.item = ""; }
        go(change);
      });
    });
    $("more").addEventListener("click", function () { shown += PAGE; renderList(); });
    window.addEventListener("hashchange", apply);
    apply();
  });
})();

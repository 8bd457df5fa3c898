"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const SIGN = { added: "+", removed: "-", moved: "→", changed: "~" };
  const objects = [];
  const byId = new Map();
  let view = "unified";
  let selected = null;
  let groupFilter = null;

  // Headlines and notes.
  for (const env of data.envs) {
    const d = el("div", "", env.headline);
    if (env.notes.length) {
      const ul = el("ul");
      for (const n of env.notes) ul.appendChild(el("li", n.split(":")[0], n));
      d.appendChild(ul);
    }
    $("headlines").appendChild(d);
  }

  // The tree: environment → producer → kind → object.
  const details = (label, count, open) => {
    const d = el("details");
    d.open = open;
    const s = el("summary", "", label + " ");
    const c = el("span", "count", "(" + count + ")");
    s.appendChild(c);
    d.appendChild(s);
    d._count = c;
    return d;
  };
  const kinds = new Map();
  const tree = $("tree");
  data.envs.forEach((env) => {
    const producers = new Map();
    for (const o of env.objects) {
      if (!producers.has(o.producer)) producers.set(o.producer, new Map());
      const k = producers.get(o.producer);
      if (!k.has(o.kind)) k.set(o.kind, []);
      k.get(o.kind).push(o);
    }
    const ed = details(env.name, env.objects.length, true);
    ed.dataset.level = "env";
    for (const [producer, ks] of producers) {
      const n = [...ks.values()].reduce((a, v) => a + v.length, 0);
      const pd = details(producer, n, producers.size <= 50);
      pd.dataset.level = "producer";
      for (const [kind, objs] of ks) {
        const kd = details(kind, objs.length, true);
        kd.dataset.level = "kind";
        for (const o of objs) {
          o.env = env.name;
          const a = el("a", "obj");
          a.dataset.id = o.id;
          a.dataset.kind = o.kind;
          a.title = o.title;
          a.appendChild(el("span", "st st-" + o.status, SIGN[o.status] || "~"));
          a.appendChild(document.createTextNode(o.name));
          a.addEventListener("click", () => select(o.id));
          o.el = a;
          o.hay = [o.env, o.producer, o.kind, o.name, o.title]
            .concat(o.changes.map((c) => c.p + "\n" + c.l.join("\n")))
            .join("\n")
            .toLowerCase();
          objects.push(o);
          byId.set(o.id, o);
          kinds.set(o.kind, (kinds.get(o.kind) || 0) + 1);
          kd.appendChild(a);
        }
        pd.appendChild(kd);
      }
      ed.appendChild(pd);
    }
    tree.appendChild(ed);
  });
  if (!objects.length) tree.appendChild(el("p", "hint", "No changes."));

  // Kind filters.
  const kindOn = new Map();
  [...kinds.keys()].sort().forEach((k) => {
    const l = el("label");
    const c = el("input");
    c.type = "checkbox";
    c.checked = true;
    c.dataset.kind = k;
    kindOn.set(k, true);
    c.addEventListener("change", () => {
      kindOn.set(k, c.checked);
      filter();
    });
    l.appendChild(c);
    l.appendChild(document.createTextNode(" " + k + " (" + kinds.get(k) + ")"));
    $("kinds").appendChild(l);
  });

  // Changes shared by several objects.
  if (data.groups.length) {
    const g = $("groups");
    g.appendChild(el("h2", "", "Changed the same way in several objects"));
    const ul = el("ul");
    data.groups.forEach((grp, i) => {
      const li = el("li");
      li.appendChild(el("code", "", grp.text));
      li.appendChild(el("span", "where", " in " + grp.where + " "));
      const a = el("a", "", "show only these");
      a.dataset.group = String(i);
      a.addEventListener("click", () => {
        groupFilter = groupFilter === grp ? null : new Set(grp.members);
        filter();
        const first = grp.members.find((m) => byId.get(m));
        if (first) select(first);
      });
      li.appendChild(a);
      ul.appendChild(li);
    });
    g.appendChild(ul);
  }

  function visible(o) {
    return !o.el.hidden;
  }

  function filter() {
    const q = $("search").value.trim().toLowerCase();
    for (const o of objects) {
      const show =
        kindOn.get(o.kind) &&
        (!q || o.hay.includes(q)) &&
        (!groupFilter || groupFilter.has(o.id));
      o.el.hidden = !show;
    }
    // Containers with nothing left are hidden; counts follow.
    for (const d of tree.querySelectorAll("details")) {
      const n = [...d.querySelectorAll(".obj")].filter((a) => !a.hidden).length;
      d.hidden = n === 0;
      d._count.textContent = "(" + n + ")";
    }
  }

  // Word-level differences of two lines: [[text, changed]...] per side.
  function words(a, b) {
    const ta = a.match(/\s+|\w+|[^\w\s]/g) || [];
    const tb = b.match(/\s+|\w+|[^\w\s]/g) || [];
    let p = 0;
    while (p < ta.length && p < tb.length && ta[p] === tb[p]) p++;
    let s = 0;
    while (s < ta.length - p && s < tb.length - p && ta[ta.length - 1 - s] === tb[tb.length - 1 - s]) s++;
    const ma = ta.slice(p, ta.length - s);
    const mb = tb.slice(p, tb.length - s);
    const keepA = new Array(ma.length).fill(false);
    const keepB = new Array(mb.length).fill(false);
    if (ma.length * mb.length <= 40000) {
      const L = [];
      for (let i = 0; i <= ma.length; i++) L.push(new Array(mb.length + 1).fill(0));
      for (let i = ma.length - 1; i >= 0; i--)
        for (let j = mb.length - 1; j >= 0; j--)
          L[i][j] = ma[i] === mb[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
      let i = 0, j = 0;
      while (i < ma.length && j < mb.length) {
        if (ma[i] === mb[j]) { keepA[i++] = true; keepB[j++] = true; }
        else if (L[i + 1][j] >= L[i][j + 1]) i++;
        else j++;
      }
    }
    const side = (t, mid, keep) =>
      t.slice(0, p).map((x) => [x, false])
        .concat(mid.map((x, i) => [x, !keep[i]]))
        .concat(t.slice(t.length - s).map((x) => [x, false]));
    return [side(ta, ma, keepA), side(tb, mb, keepB)];
  }

  function cell(cls, text, marks) {
    const td = el("td", cls);
    if (marks) {
      for (const [t, changed] of marks) td.appendChild(changed && t.trim() ? el("mark", "", t) : document.createTextNode(t));
    } else td.textContent = text;
    return td;
  }

  // A hunk's lines as blocks: context lines, or a run of removals followed
  // by a run of additions (paired line by line for word highlighting).
  function blocks(lines) {
    const out = [];
    let i = 0;
    while (i < lines.length) {
      if (lines[i][0] === " ") { out.push({ ctx: lines[i].slice(1) }); i++; continue; }
      const del = [], add = [];
      while (i < lines.length && lines[i][0] === "-") del.push(lines[i++].slice(1));
      while (i < lines.length && lines[i][0] === "+") add.push(lines[i++].slice(1));
      out.push({ del, add });
    }
    return out;
  }

  function diffTable(hunks) {
    const t = el("table", "diff " + (view === "split" ? "split" : "uni"));
    for (const h of hunks) {
      const hr = el("tr", "hh");
      const td = el("td", "", h.h);
      td.colSpan = view === "split" ? 4 : 3;
      hr.appendChild(td);
      t.appendChild(hr);
      let o = h.o || 1, n = h.n || 1;
      for (const b of blocks(h.l)) {
        if (b.ctx !== undefined) {
          const tr = el("tr");
          if (view === "split") {
            tr.append(cell("n", String(o)), cell("", b.ctx), cell("n", String(n)), cell("", b.ctx));
          } else {
            tr.append(cell("n", String(o)), cell("n", String(n)), cell("", " " + b.ctx));
          }
          o++; n++;
          t.appendChild(tr);
          continue;
        }
        const pairs = Math.max(b.del.length, b.add.length);
        const marks = [];
        for (let k = 0; k < pairs; k++)
          marks.push(k < b.del.length && k < b.add.length ? words(b.del[k], b.add[k]) : [null, null]);
        if (view === "split") {
          for (let k = 0; k < pairs; k++) {
            const tr = el("tr");
            if (k < b.del.length) tr.append(cell("n d", String(o++)), cell("d", b.del[k], marks[k][0]));
            else tr.append(cell("n", ""), cell("", ""));
            if (k < b.add.length) tr.append(cell("n a", String(n++)), cell("a", b.add[k], marks[k][1]));
            else tr.append(cell("n", ""), cell("", ""));
            t.appendChild(tr);
          }
        } else {
          b.del.forEach((x, k) => {
            const tr = el("tr");
            tr.append(cell("n d", String(o++)), cell("n d", ""), cell("d", null, prefix("-", x, marks[k][0])));
            t.appendChild(tr);
          });
          b.add.forEach((x, k) => {
            const tr = el("tr");
            tr.append(cell("n a", ""), cell("n a", String(n++)), cell("a", null, prefix("+", x, marks[k] && marks[k][1])));
            t.appendChild(tr);
          });
        }
      }
    }
    return t;
  }

  function prefix(sign, text, marks) {
    return [[sign, false]].concat(marks || [[text, false]]);
  }

  function render() {
    const d = $("detail");
    d.textContent = "";
    const o = selected && byId.get(selected);
    if (!o) {
      d.appendChild(el("p", "hint", "Select an object (j/k or ↑/↓ to move)."));
      return;
    }
    d.appendChild(el("h2", "", o.title));
    d.appendChild(el("div", "hint", o.env + " · " + o.producer));
    if (o.changes.length) {
      const ul = el("ul", "paths");
      for (const c of o.changes) {
        const li = el("li");
        li.appendChild(el("span", "path", c.p));
        if (c.l.length === 2 && c.l[0][0] === "-" && c.l[1][0] === "+") {
          li.appendChild(document.createTextNode(": " + c.l[0].slice(1) + " → " + c.l[1].slice(1)));
        } else if (c.l.length === 1) {
          li.appendChild(document.createTextNode(c.l[0][0] === " " ? ":" + c.l[0] : c.l[0][0] === "+" ? ": added " + c.l[0].slice(1) : ": removed " + c.l[0].slice(1)));
        } else {
          li.appendChild(document.createTextNode(": " + c.l.length + " lines"));
        }
        ul.appendChild(li);
      }
      d.appendChild(ul);
    }
    if (o.hunks.length) d.appendChild(diffTable(o.hunks));
    else d.appendChild(el("p", "hint", "No content change."));
  }

  function select(id) {
    if (selected && byId.get(selected)) byId.get(selected).el.classList.remove("sel");
    selected = id;
    const o = byId.get(id);
    if (o) {
      o.el.classList.add("sel");
      for (let p = o.el.parentElement; p && p !== tree; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
      o.el.scrollIntoView({ block: "nearest" });
    }
    render();
  }

  function move(step) {
    const vis = objects.filter(visible);
    if (!vis.length) return;
    const i = vis.findIndex((o) => o.id === selected);
    const j = i < 0 ? (step > 0 ? 0 : vis.length - 1) : Math.min(vis.length - 1, Math.max(0, i + step));
    select(vis[j].id);
  }

  function setView(v) {
    view = v;
    $("view-unified").classList.toggle("on", v === "unified");
    $("view-split").classList.toggle("on", v === "split");
    render();
  }

  function toggleTheme() {
    const root = document.documentElement;
    const dark = root.dataset.theme ? root.dataset.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.theme = dark ? "light" : "dark";
  }

  $("search").addEventListener("input", filter);
  $("view-unified").addEventListener("click", () => setView("unified"));
  $("view-split").addEventListener("click", () => setView("split"));
  $("theme").addEventListener("click", toggleTheme);
  document.addEventListener("keydown", (e) => {
    if (e.target === $("search")) {
      if (e.key === "Escape" || e.key === "Enter") $("search").blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "j" || e.key === "ArrowDown") { move(1); e.preventDefault(); }
    else if (e.key === "k" || e.key === "ArrowUp") { move(-1); e.preventDefault(); }
    else if (e.key === "/") { $("search").focus(); e.preventDefault(); }
    else if (e.key === "v") setView(view === "unified" ? "split" : "unified");
    else if (e.key === "t") toggleTheme();
  });
  if (objects.length) select(objects[0].id);
  document.body.dataset.ready = "1";
})();

/*
 * A demo of msgkit's UI integration proxy: a grid and a KPI tile whose data
 * the proxy fetches from a customer-side API — here the example server's
 * mock operations. It signs in with the client credentials grant (or takes
 * a token from the URL fragment #token=...), reads the grid's columns from
 * the component description and pages, sorts and filters through
 * /ui/v1/grid. Every value from the server is written with textContent, so
 * customer data can never become markup.
 *
 * document.body.dataset.state says what the page is doing, for people and
 * for tests: "signed-out", "loading", "ready" or "error".
 */
"use strict";

(() => {
  const TOKEN_KEY = "msgkit.uidemo.token";

  // Operators that take no value, a list of values, or a range of two.
  const NO_VALUE = new Set(["isnull", "isnotnull", "isempty", "isnotempty"]);
  const LIST_OPS = new Set(["in", "notin"]);
  const RANGE_OPS = new Set(["between", "notbetween"]);

  // The operators that fit each column kind, used only when a component
  // description lists none for a column.
  const ORDER_OPS = ["isnull", "isnotnull", "eq", "neq", "in", "notin", "lt", "lte", "gt", "gte", "between", "notbetween"];
  const KIND_OPS = {
    string: ["isnull", "isnotnull", "isempty", "isnotempty", "eq", "neq", "in", "notin", "startswith", "contains", "endswith", "doesnotcontain"],
    number: ORDER_OPS,
    date: ORDER_OPS,
    datetime: ORDER_OPS.filter((op) => !LIST_OPS.has(op)),
    boolean: ["isnull", "isnotnull", "eq", "neq"],
  };

  const OP_LABELS = {
    isnull: "is null", isnotnull: "is not null", isempty: "is empty", isnotempty: "is not empty",
    eq: "=", neq: "≠", in: "in", notin: "not in", lt: "<", lte: "≤", gt: ">", gte: "≥",
    between: "between", notbetween: "not between", startswith: "starts with", contains: "contains",
    endswith: "ends with", doesnotcontain: "does not contain",
  };

  const PLACEHOLDERS = { date: "YYYY-MM-DD", datetime: "2026-01-01T09:30:00Z", boolean: "true or false", number: "number" };

  const $ = (id) => document.getElementById(id);

  const view = {
    token: null,
    columns: [],
    sort: null, // {column, desc}
    filters: [], // [{column, op, value}]
    page: 1,
    pending: 0,
    controllers: new Map(), // one in-flight request per kind: a newer one aborts it
    errors: new Map(), // the failure of each kind, shown together in #error
  };

  // SignedOut ends a request whose token the server no longer accepts; the
  // sign-in form says so, so the request itself reports nothing.
  class SignedOut extends Error {}

  function updateState() {
    const errors = [...view.errors.values()];
    const box = $("error");
    box.textContent = errors.join(" · ");
    box.hidden = errors.length === 0;
    let state = "ready";
    if (view.pending > 0) state = "loading";
    else if (errors.length > 0) state = "error";
    else if (!view.token) state = "signed-out";
    document.body.dataset.state = state;
  }

  // run performs one kind of request at a time, keeping the page state and
  // the kind's error up to date; a superseded request reports nothing.
  async function run(kind, fn) {
    view.controllers.get(kind)?.abort();
    const ctl = new AbortController();
    view.controllers.set(kind, ctl);
    view.pending++;
    view.errors.delete(kind);
    updateState();
    try {
      await fn(ctl.signal);
    } catch (err) {
      if (!ctl.signal.aborted && !(err instanceof SignedOut)) {
        view.errors.set(kind, err.message || String(err));
      }
    } finally {
      if (view.controllers.get(kind) === ctl) view.controllers.delete(kind);
      view.pending--;
      updateState();
    }
  }

  // errorMessage reads an error body in any of the platform's shapes:
  // {"Code","Message"}, {"code","message","description"} or OAuth's
  // {"error","error_description"}.
  function errorMessage(body) {
    if (!body || typeof body !== "object") return "";
    const message = body.Message ?? body.message ?? body.error_description ?? body.error ?? body.Code ?? body.code;
    const parts = [message, body.description].filter((s) => typeof s === "string" && s !== "");
    return parts.join(" — ");
  }

  async function readJSON(res) {
    const text = await res.text();
    if (!text) return null;
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  }

  async function api(path, signal) {
    const res = await fetch(path, {
      headers: { Authorization: "Bearer " + view.token, Accept: "application/json" },
      // No cookies or HTTP authentication: a 401 must not open the
      // browser's password dialog.
      credentials: "omit",
      signal,
    });
    const body = await readJSON(res);
    if (res.status === 401) {
      signOut("Your session has ended (" + (errorMessage(body) || "401") + "); sign in again.");
      throw new SignedOut();
    }
    if (!res.ok) throw new Error(errorMessage(body) || `The server answered ${res.status} ${res.statusText}.`);
    if (body === null || typeof body !== "object") throw new Error("The server answered no JSON object.");
    return body;
  }

  // Signing in and out.

  function showSignIn() {
    $("app").hidden = true;
    $("sign-out").hidden = true;
    $("sign-in-panel").hidden = false;
    $("client-id").focus();
  }

  function showApp() {
    $("sign-in-panel").hidden = true;
    $("app").hidden = false;
    $("sign-out").hidden = false;
  }

  function signOut(message) {
    for (const ctl of view.controllers.values()) ctl.abort();
    view.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    view.errors.clear();
    if (message) view.errors.set("auth", message);
    showSignIn();
    updateState();
  }

  function signIn(ev) {
    ev.preventDefault();
    view.errors.clear();
    run("auth", async (signal) => {
      const res = await fetch("/oauth2/access-token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        // The token endpoint answers a wrong secret 401 with
        // WWW-Authenticate: Basic; without credentials the browser shows
        // no password dialog for it.
        credentials: "omit",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: $("client-id").value,
          client_secret: $("client-secret").value,
        }),
        signal,
      });
      const body = await readJSON(res);
      if (!res.ok || !body || typeof body.access_token !== "string" || body.access_token === "") {
        throw new Error(errorMessage(body) || `Sign-in failed: ${res.status} ${res.statusText}.`);
      }
      $("client-secret").value = "";
      startWith(body.access_token);
    });
  }

  function startWith(token) {
    view.token = token;
    sessionStorage.setItem(TOKEN_KEY, token);
    showApp();
    loadAll();
  }

  // Loading.

  const settings = () => ({
    grid: $("grid-component").value.trim(),
    kpi: $("kpi-component").value.trim(),
    reference: $("reference-id").value.trim(),
    pageSize: $("page-size").value.trim() || "10",
  });

  // loadAll starts over: the grid's description, its first page without
  // sort or filters, and the KPI.
  function loadAll() {
    view.sort = null;
    view.filters = [];
    view.page = 1;
    view.errors.clear();
    renderFilters();
    const s = settings();
    run("grid", async (signal) => {
      const desc = await api("/ui/v1/components/" + encodeURIComponent(s.grid), signal);
      if (!Array.isArray(desc.columns) || desc.columns.length === 0) {
        throw new Error(`The component ${s.grid} is no grid (it has no columns).`);
      }
      view.columns = desc.columns;
      renderHeader();
      renderFilterColumns();
      await fetchGrid(signal);
    });
    loadKPI();
  }

  function gridPath() {
    const s = settings();
    const q = [
      "reference_id=" + encodeURIComponent(s.reference),
      "page_number=" + view.page,
      "page_size=" + encodeURIComponent(s.pageSize),
    ];
    if (view.sort) q.push("sort=" + encodeURIComponent((view.sort.desc ? "-" : "") + view.sort.column));
    for (const f of view.filters) {
      const key = f.op === "eq" ? encodeURIComponent(f.column) : `${f.op}(${encodeURIComponent(f.column)})`;
      q.push(key + "=" + encodeURIComponent(f.value));
    }
    return "/ui/v1/grid/" + encodeURIComponent(s.grid) + "?" + q.join("&");
  }

  function loadGrid() {
    run("grid", fetchGrid);
  }

  async function fetchGrid(signal) {
    const path = gridPath();
    $("last-request").textContent = "GET " + path;
    renderHeader(); // the sort indicator shows at once
    try {
      const page = await api(path, signal);
      const rows = Array.isArray(page.data) ? page.data : [];
      renderRows(rows);
      $("grid-empty").hidden = rows.length > 0;
      renderPager(page.meta?.pagination ?? {});
    } catch (err) {
      if (!signal.aborted) {
        renderRows([]);
        $("grid-empty").hidden = true;
        renderPager(null);
      }
      throw err;
    }
  }

  function loadKPI() {
    const s = settings();
    run("kpi", async (signal) => {
      const path = "/ui/v1/kpi/" + encodeURIComponent(s.kpi) + "?reference_id=" + encodeURIComponent(s.reference);
      try {
        renderKPI(await api(path, signal));
      } catch (err) {
        if (!signal.aborted) renderKPI({});
        throw err;
      }
    });
  }

  // Rendering. Only textContent and attributes: never markup from data.

  function renderHeader() {
    const row = document.querySelector("#grid thead tr");
    row.replaceChildren();
    for (const col of view.columns) {
      const th = document.createElement("th");
      th.dataset.col = col.name;
      th.dataset.kind = col.kind;
      th.scope = "col";
      if (col.kind === "number") th.classList.add("num");
      if (!col.sortable) {
        th.textContent = col.name;
        row.append(th);
        continue;
      }
      const sorted = view.sort?.column === col.name ? view.sort : null;
      th.classList.add("sortable");
      th.setAttribute("aria-sort", sorted ? (sorted.desc ? "descending" : "ascending") : "none");
      const button = document.createElement("button");
      button.type = "button";
      button.title = "Sort by " + col.name;
      const name = document.createElement("span");
      name.textContent = col.name;
      const mark = document.createElement("span");
      mark.className = "sort-indicator";
      mark.textContent = sorted ? (sorted.desc ? "▼" : "▲") : "";
      button.append(name, mark);
      th.append(button);
      th.addEventListener("click", () => toggleSort(col.name));
      row.append(th);
    }
  }

  // toggleSort cycles a column through ascending, descending and unsorted.
  function toggleSort(column) {
    if (view.sort?.column !== column) view.sort = { column, desc: false };
    else if (!view.sort.desc) view.sort = { column, desc: true };
    else view.sort = null;
    view.page = 1;
    loadGrid();
  }

  function renderRows(rows) {
    const body = document.querySelector("#grid tbody");
    body.replaceChildren();
    for (const row of rows) {
      const tr = document.createElement("tr");
      for (const col of view.columns) {
        tr.append(cell(col, row?.[col.name]));
      }
      body.append(tr);
    }
  }

  function cell(col, value) {
    const td = document.createElement("td");
    td.dataset.col = col.name;
    if (col.kind === "number") td.classList.add("num");
    if (value === null || value === undefined) {
      td.classList.add("null");
      td.title = "null";
      td.textContent = "—";
      return td;
    }
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (col.kind === "string" && /^https?:\/\//i.test(text)) {
      const a = document.createElement("a");
      a.href = text;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      a.textContent = text;
      td.append(a);
    } else if (col.kind === "date" || col.kind === "datetime") {
      const time = document.createElement("time");
      time.dateTime = text;
      time.textContent = text;
      td.append(time);
    } else {
      td.textContent = text;
    }
    return td;
  }

  function renderPager(p) {
    const info = $("page-info");
    if (!p) {
      info.textContent = "";
      $("prev").disabled = true;
      $("next").disabled = true;
      return;
    }
    const current = Number(p.current_page) || view.page;
    const pages = Math.max(Number(p.total_pages) || 0, 1);
    const total = Number(p.total) || 0;
    view.page = current;
    info.textContent = `Page ${current} of ${pages} · ${total} ${total === 1 ? "row" : "rows"}`;
    $("prev").disabled = current <= 1;
    $("next").disabled = current >= pages;
  }

  function renderKPI(k) {
    const str = (v) => (typeof v === "string" ? v : "");
    $("kpi-title").textContent = str(k.title);
    $("kpi-value").textContent = str(k.value);
    $("kpi-footer").textContent = str(k.footer);
    const link = $("kpi-link");
    if (/^https?:\/\//i.test(str(k.link))) {
      link.href = k.link;
      link.hidden = false;
    } else {
      link.removeAttribute("href");
      link.hidden = true;
    }
  }

  // Filters.

  function filterable() {
    return view.columns.filter((c) => c.filterable);
  }

  function operatorsOf(col) {
    return Array.isArray(col?.operators) && col.operators.length > 0 ? col.operators : KIND_OPS[col?.kind] ?? [];
  }

  function renderFilterColumns() {
    const select = $("filter-column");
    select.replaceChildren(...filterable().map((c) => new Option(c.name, c.name)));
    const none = select.options.length === 0;
    for (const id of ["filter-column", "filter-op", "filter-value", "filter-apply"]) $(id).disabled = none;
    renderOperators();
  }

  function renderOperators() {
    const col = filterable().find((c) => c.name === $("filter-column").value);
    const ops = operatorsOf(col);
    $("filter-op").replaceChildren(...ops.map((op) => new Option(OP_LABELS[op] ?? op, op)));
    // Start on an operator that takes a value: the null checks come first
    // in the list but are rarely what one wants.
    const preferred = ["contains", "eq"].find((op) => ops.includes(op));
    if (preferred) $("filter-op").value = preferred;
    renderValueInput();
  }

  function renderValueInput() {
    const col = filterable().find((c) => c.name === $("filter-column").value);
    const op = $("filter-op").value;
    const input = $("filter-value");
    input.disabled = !col || NO_VALUE.has(op);
    if (NO_VALUE.has(op)) {
      input.value = "";
      input.placeholder = "no value";
    } else if (LIST_OPS.has(op)) {
      input.placeholder = "a,b,c";
    } else if (RANGE_OPS.has(op)) {
      input.placeholder = "from,to";
    } else {
      input.placeholder = PLACEHOLDERS[col?.kind] ?? "value";
    }
  }

  function applyFilter(ev) {
    ev.preventDefault();
    const column = $("filter-column").value;
    const op = $("filter-op").value;
    if (!column || !op) return;
    const value = NO_VALUE.has(op) ? "" : $("filter-value").value.trim();
    view.errors.delete("filter");
    if (!NO_VALUE.has(op) && value === "") {
      view.errors.set("filter", `The operator ${op} needs a value.`);
    } else if (RANGE_OPS.has(op) && value.split(",").length !== 2) {
      view.errors.set("filter", `The operator ${op} takes two values: from,to.`);
    }
    if (view.errors.has("filter")) {
      updateState();
      return;
    }
    view.filters = view.filters.filter((f) => !(f.column === column && f.op === op));
    view.filters.push({ column, op, value });
    view.page = 1;
    renderFilters();
    loadGrid();
  }

  function clearFilters() {
    view.filters = [];
    view.errors.delete("filter");
    $("filter-value").value = "";
    view.page = 1;
    renderFilters();
    loadGrid();
  }

  function renderFilters() {
    const list = $("filters");
    list.replaceChildren();
    view.filters.forEach((f, i) => {
      const li = document.createElement("li");
      const label = document.createElement("span");
      label.textContent = `${f.column} ${OP_LABELS[f.op] ?? f.op}${NO_VALUE.has(f.op) ? "" : " " + f.value}`;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = "×";
      remove.title = "Remove this filter";
      remove.addEventListener("click", () => {
        view.filters.splice(i, 1);
        view.page = 1;
        renderFilters();
        loadGrid();
      });
      li.append(label, remove);
      list.append(li);
    });
  }

  // Wiring.

  function init() {
    $("sign-in-form").addEventListener("submit", signIn);
    $("sign-out").addEventListener("click", () => signOut());
    $("settings").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadAll();
    });
    $("filter").addEventListener("submit", applyFilter);
    $("filter-clear").addEventListener("click", clearFilters);
    $("filter-column").addEventListener("change", renderOperators);
    $("filter-op").addEventListener("change", renderValueInput);
    $("prev").addEventListener("click", () => {
      view.page = Math.max(view.page - 1, 1);
      loadGrid();
    });
    $("next").addEventListener("click", () => {
      view.page++;
      loadGrid();
    });

    // A token in the fragment (#token=...) signs in without the form; it
    // is removed from the address so that it is not bookmarked or shared.
    const fromFragment = new URLSearchParams(location.hash.slice(1)).get("token");
    if (fromFragment) history.replaceState(null, "", location.pathname + location.search);
    const token = fromFragment || sessionStorage.getItem(TOKEN_KEY);
    if (token) {
      startWith(token);
    } else {
      showSignIn();
      updateState();
    }
  }

  init();
})();

"use strict";
// The console's pages, routed by the location hash. Everything is built with DOM calls
// (never innerHTML), so nothing the API returns can become markup.
(function () {
  const API = window.OpenPushAPI;
  const Charts = window.OpenPushCharts;
  const view = document.getElementById("view");
  const signInSection = document.getElementById("sign-in");
  const errorBox = document.getElementById("error");
  const nav = document.getElementById("nav");
  let stopPage = function () {};

  function h(tag, attributes) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (let i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  function time(seconds) {
    if (seconds === null || seconds === undefined) return "—";
    return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC";
  }
  function isoTime(text) { return text ? text.replace("T", " ").slice(0, 19) + " UTC" : "—"; }
  function enc(text) { return encodeURIComponent(text); }

  function showError(error) {
    const messages = error && error.messages ? error.messages : [String(error && error.message || error)];
    let text = messages.join("; ");
    if (error && error.status === 401 && !API.orgKey()) text = "That key was refused: " + text;
    errorBox.replaceChildren(h("strong", {}, error && error.status ? "Error " + error.status + ": " : "Error: "), text);
    errorBox.hidden = false;
  }
  function clearError() { errorBox.hidden = true; errorBox.replaceChildren(); }

  async function guarded(action) {
    try {
      clearError();
      return await action();
    } catch (error) {
      showError(error);
      // The organization key itself no longer works (or never did): back to the sign-in form.
      if (error && error.status === 401 && String(error.message).includes("organization key")) {
        await API.signOut();
        await render();
      }
      return undefined;
    }
  }

  function shownOnce(title, pairs) {
    return h("div", { class: "secret", id: "shown-once" },
      h("strong", {}, title + " — shown once, copy it now"),
      pairs.map(function (pair) { return h("div", {}, pair[0] + ": ", h("code", { class: "value", "data-name": pair[0] }, pair[1])); }));
  }

  function readFile(input) {
    const file = input.files && input.files[0];
    if (!file) return Promise.resolve(null);
    return new Promise(function (resolve, reject) {
      const reader = new FileReader();
      reader.onload = function () { resolve(String(reader.result)); };
      reader.onerror = function () { reject(new Error("cannot read " + file.name)); };
      reader.readAsText(file);
    });
  }

  function field(label, input) { return h("label", {}, label, input); }

  async function appsList() {
    const apps = await API.call("GET", "/apps", { query: { limit: 100 } });
    return apps.body || [];
  }

  function appSelect(apps, selected, onChange) {
    const select = h("select", { id: "app-select", onchange: function () { onChange(select.value); } },
      apps.map(function (app) { return h("option", { value: app.id, selected: app.id === selected }, app.name + " (" + app.id + ")"); }));
    return select;
  }

  function statusBadge(status) {
    const paused = status && status.state === "paused";
    // A certificate in its last thirty days: still sending, with the warning as the badge's tooltip.
    if (status && status.state === "expiring") {
      return h("span", { class: "badge expiring", title: status.warning || "" }, "certificate expiring");
    }
    return h("span", { class: "badge " + (paused ? "paused" : "ok") },
      paused ? "paused" + (status.reason ? ": " + status.reason : "") : "ok");
  }

  // ---- Apps
  async function pageApps() {
    const apps = await appsList();
    const stats = await Promise.all(apps.map(function (app) {
      return API.call("GET", "/apps/" + enc(app.id) + "/stats", { query: { window: "24h" } })
        .then(function (r) { return r.body; }, function () { return null; });
    }));
    const rows = apps.map(function (app, i) {
      const s = stats[i] || {};
      const paused = [app.apns_status, app.fcm_status, app.web_push_status].some(function (status) { return status && status.state === "paused"; });
      return h("tr", { class: paused ? "paused" : "", "data-app": app.id },
        h("td", {}, h("a", { href: "#/apps/" + enc(app.id) }, app.name)),
        h("td", {}, h("code", {}, app.id)),
        h("td", {}, app.apns_bundle_id || "—"),
        h("td", {}, app.apns_env),
        h("td", {}, statusBadge(app.apns_status), app.fcm_status ? [" FCM ", statusBadge(app.fcm_status)] : null,
          app.web_push_status ? [" Web ", statusBadge(app.web_push_status)] : null),
        h("td", { class: "num" }, s.devices !== undefined ? s.devices : "—"),
        h("td", { class: "num", "data-figure": "sent" }, s.sent !== undefined ? s.sent : "—"),
        h("td", { class: "num", "data-figure": "accepted" }, s.accepted !== undefined ? s.accepted : "—"),
        h("td", { class: "num", "data-figure": "failed" }, s.failed !== undefined ? s.failed : "—"));
    });
    const created = h("div", { id: "created" });
    const p8 = h("input", { type: "file", id: "new-p8", accept: ".p8,.pem,text/plain" });
    const form = h("form", { id: "create-app", class: "grid-form" },
      field("Name", h("input", { id: "new-name", required: true, maxlength: 128 })),
      field("Bundle id", h("input", { id: "new-bundle", placeholder: "com.example.app" })),
      field("Environment", h("select", { id: "new-env" }, h("option", { value: "production" }, "production"), h("option", { value: "sandbox" }, "sandbox"))),
      field(".p8 key", p8),
      field("Key id", h("input", { id: "new-key-id", placeholder: "ABC123DEFG" })),
      field("Team id", h("input", { id: "new-team-id", placeholder: "DEF123GHIJ" })),
      h("button", { type: "submit" }, "Create app"));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      guarded(async function () {
        const body = { name: form.querySelector("#new-name").value, apns_env: form.querySelector("#new-env").value };
        const bundle = form.querySelector("#new-bundle").value.trim();
        if (bundle) body.apns_bundle_id = bundle;
        const pem = await readFile(p8);
        if (pem) body.apns_p8 = pem;
        const keyID = form.querySelector("#new-key-id").value.trim();
        const teamID = form.querySelector("#new-team-id").value.trim();
        if (keyID) body.apns_key_id = keyID;
        if (teamID) body.apns_team_id = teamID;
        const made = (await API.call("POST", "/apps", { body: body })).body;
        await render();
        document.getElementById("created").replaceChildren(
          shownOnce("App " + made.name + " created (" + made.id + ")", [["REST API key", made.basic_auth_key], ["SDK key", made.sdk_key]]),
          h("p", {}, h("a", { href: "#/apps/" + enc(made.id), id: "open-created" }, "Open " + made.name)));
      });
    });
    return [
      h("h1", {}, "Apps"),
      h("table", { id: "apps" },
        h("thead", {}, h("tr", {}, ["Name", "Id", "Bundle id", "Environment", "APNs", "Devices", "Sent 24 h", "Accepted", "Failed"].map(function (t) { return h("th", {}, t); }))),
        h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 9 }, "No apps yet.")))),
      h("section", { class: "card" }, h("h2", {}, "Create an app"), form, created),
    ];
  }

  // ---- App
  async function pageApp(appID) {
    const app = (await API.call("GET", "/apps/" + enc(appID))).body;
    const tokens = (await API.call("GET", "/apps/" + enc(appID) + "/auth/tokens")).body.tokens || [];
    const own = API.consoleKeyIDs();
    const once = h("div", { id: "once" });
    function showOnce(title, pairs) { once.replaceChildren(shownOnce(title, pairs)); }
    async function reload(title, pairs) { await render(); if (title) document.getElementById("once").replaceChildren(shownOnce(title, pairs)); }

    const keyRows = tokens.map(function (token) {
      return h("tr", { "data-token": token.id },
        h("td", {}, token.name, own.includes(token.id) ? h("em", {}, " (this console)") : null),
        h("td", {}, h("code", {}, token.id)), h("td", {}, isoTime(token.created_at)), h("td", {}, isoTime(token.rotated_at)),
        h("td", {}, token.expires_at ? isoTime(token.expires_at) : "never"),
        h("td", {},
          h("button", { type: "button", class: "small", onclick: function () { guarded(async function () {
            const made = (await API.call("POST", "/apps/" + enc(appID) + "/auth/tokens/" + enc(token.id) + "/rotate")).body;
            if (own.includes(token.id)) API.forgetRestKey(appID);
            await reload("Key " + token.name + " rotated", [["REST API key", made.token]]);
          }); } }, "Rotate"),
          h("button", { type: "button", class: "small danger", onclick: function () { guarded(async function () {
            if (!window.confirm("Delete the key " + token.name + "? Clients using it stop working.")) return;
            await API.call("DELETE", "/apps/" + enc(appID) + "/auth/tokens/" + enc(token.id));
            if (own.includes(token.id)) API.forgetRestKey(appID);
            await reload();
          }); } }, "Delete")));
    });
    const keyName = h("input", { id: "key-name", placeholder: "backend", required: true });
    const keyForm = h("form", { id: "create-key", class: "inline" }, keyName, h("button", { type: "submit" }, "Create REST key"));
    keyForm.addEventListener("submit", function (event) { event.preventDefault(); guarded(async function () {
      const made = (await API.call("POST", "/apps/" + enc(appID) + "/auth/tokens", { body: { name: keyName.value } })).body;
      await reload("Key " + made.name + " created", [["REST API key", made.token]]);
    }); });
    const rotateSDK = h("button", { type: "button", id: "rotate-sdk", onclick: function () { guarded(async function () {
      if (!window.confirm("Rotate the SDK key? Apps with the old one stop registering.")) return;
      const made = (await API.call("POST", "/apps/" + enc(appID) + "/sdk_key/rotate")).body;
      showOnce("SDK key rotated", [["SDK key", made.sdk_key]]);
    }); } }, "Rotate SDK key");

    const p8 = h("input", { type: "file", id: "cred-p8", accept: ".p8,.pem,text/plain" });
    const credForm = h("form", { id: "credentials", class: "grid-form" },
      field(".p8 key (leave empty to keep)", p8),
      field("Key id", h("input", { id: "cred-key-id", value: app.apns_key_id || "" })),
      field("Team id", h("input", { id: "cred-team-id", value: app.apns_team_id || "" })),
      field("Bundle id", h("input", { id: "cred-bundle", value: app.apns_bundle_id || "" })),
      field("Environment", h("select", { id: "cred-env" }, ["production", "sandbox"].map(function (env) { return h("option", { value: env, selected: app.apns_env === env }, env); }))),
      h("button", { type: "submit" }, "Save credentials"));
    credForm.addEventListener("submit", function (event) { event.preventDefault(); guarded(async function () {
      const body = { apns_env: credForm.querySelector("#cred-env").value };
      for (const [id, name] of [["#cred-key-id", "apns_key_id"], ["#cred-team-id", "apns_team_id"], ["#cred-bundle", "apns_bundle_id"]]) {
        const value = credForm.querySelector(id).value.trim();
        body[name] = value || null;
      }
      const pem = await readFile(p8);
      if (pem) body.apns_p8 = pem;
      await API.call("PUT", "/apps/" + enc(appID), { body: body });
      await reload();
    }); });

    // The service account key file from the Firebase console; OpenPush never shows it back.
    const serviceAccount = h("input", { type: "file", id: "fcm-service-account", accept: ".json,application/json,text/plain" });
    const fcmForm = h("form", { id: "fcm-credentials-form", class: "grid-form" },
      field("Service account key (JSON)", serviceAccount),
      h("button", { type: "submit" }, "Save FCM credentials"),
      app.has_fcm_credentials ? h("button", { type: "button", id: "fcm-remove", class: "danger", onclick: function () { guarded(async function () {
        if (!window.confirm("Remove the FCM service account? Android pushes stop until a new one is set.")) return;
        await API.call("PUT", "/apps/" + enc(appID), { body: { fcm_service_account: null } });
        await reload();
      }); } }, "Remove") : null);
    fcmForm.addEventListener("submit", function (event) { event.preventDefault(); guarded(async function () {
      const json = await readFile(serviceAccount);
      if (!json) return;
      await API.call("PUT", "/apps/" + enc(appID), { body: { fcm_service_account: json } });
      await reload();
    }); });

    let tenantsSection;
    if (app.shared_demo) {
      const tenants = (await API.call("GET", "/apps/" + enc(appID) + "/tenants")).body.tenants || [];
      const tenantName = h("input", { id: "tenant-name", required: true, placeholder: "Acme" });
      const tenantForm = h("form", { class: "inline", id: "create-tenant" }, tenantName, h("button", { type: "submit" }, "Create tenant"));
      tenantForm.addEventListener("submit", function (event) { event.preventDefault(); guarded(async function () {
        const made = (await API.call("POST", "/apps/" + enc(appID) + "/tenants", { body: { name: tenantName.value } })).body;
        await reload("Tenant " + made.name + " created", [["link code", made.link_code], ["REST API key", made.rest_api_key]]);
      }); });
      tenantsSection = [h("table", {}, h("thead", {}, h("tr", {}, ["Tenant", "Id", "Link code", "Linked devices", ""].map(function (t) { return h("th", {}, t); }))),
        h("tbody", {}, tenants.map(function (tenant) {
          return h("tr", {}, h("td", {}, tenant.name), h("td", {}, h("code", {}, tenant.id)), h("td", {}, h("code", {}, tenant.link_code || "—")),
            h("td", { class: "num" }, tenant.linked_devices),
            h("td", {}, h("button", { type: "button", class: "small danger", onclick: function () { guarded(async function () {
              if (!window.confirm("Delete the tenant " + tenant.name + "?")) return;
              await API.call("DELETE", "/apps/" + enc(appID) + "/tenants/" + enc(tenant.id));
              await reload();
            }); } }, "Delete")));
        }))), tenantForm];
    } else {
      tenantsSection = h("p", { class: "muted" }, "Not a shared demo app (set shared_demo to use tenants and link codes).");
    }

    const segments = (await API.asApp(appID, "GET", "/apps/" + enc(appID) + "/segments", { query: { limit: 100 } })).body.segments || [];
    return [
      h("p", {}, h("a", { href: "#/apps" }, "← Apps")),
      h("h1", {}, app.name),
      h("dl", { class: "facts" },
        h("dt", {}, "Id"), h("dd", {}, h("code", {}, app.id)),
        h("dt", {}, "Bundle id"), h("dd", {}, app.apns_bundle_id || "—"),
        h("dt", {}, "Environment"), h("dd", {}, app.apns_env),
        h("dt", {}, "APNs"), h("dd", {}, statusBadge(app.apns_status)),
        app.apns_auth === "certificate"
          ? [h("dt", {}, "Certificate"), h("dd", { id: "apns-certificate" }, "expires " + app.apns_certificate_expires_at
              + " (topics " + (app.apns_certificate_topics || []).join(", ") + ")"
              + (app.apns_status && app.apns_status.warning ? " — " + app.apns_status.warning : ""))]
          : [h("dt", {}, ".p8 key"), h("dd", {}, app.has_apns_key ? "loaded (key id " + (app.apns_key_id || "—") + ", team " + (app.apns_team_id || "—") + ")" : "none")],
        h("dt", {}, "FCM"), h("dd", { id: "fcm-status" }, app.fcm_status ? statusBadge(app.fcm_status) : "—"),
        h("dt", {}, "FCM service account"), h("dd", { id: "fcm-credentials" },
          app.has_fcm_credentials ? "loaded (project " + (app.fcm_project_id || "—") + ")" : "none"),
        h("dt", {}, "Web Push"), h("dd", { id: "web-push-status" }, app.web_push_status ? statusBadge(app.web_push_status) : "—"),
        h("dt", {}, "VAPID public key"), h("dd", {}, h("code", { id: "web-push-vapid-public-key" }, app.web_push_vapid_public_key || "—")),
        h("dt", {}, "VAPID subject"), h("dd", { id: "web-push-subject" }, app.web_push_subject || "— (the deployment's OPENPUSH_WEB_PUSH_SUBJECT)")),
      h("p", {}, h("a", { href: "#/messages/" + enc(appID) }, "Messages"), " · ", h("a", { href: "#/send/" + enc(appID) }, "Send a test push")),
      once,
      h("section", { class: "card" }, h("h2", {}, "Keys"),
        h("table", { id: "keys" }, h("thead", {}, h("tr", {}, ["Name", "Id", "Created", "Rotated", "Expires", ""].map(function (t) { return h("th", {}, t); }))), h("tbody", {}, keyRows)),
        h("p", { class: "muted", id: "console-key-note" }, "This console reads this app's segments and sends test pushes with a REST key of its own (named console). The key expires 12 hours after the console makes it, is made again when needed, and is deleted when you sign out."),
        keyForm, h("p", {}, rotateSDK)),
      h("section", { class: "card" }, h("h2", {}, "APNs credentials"), credForm),
      h("section", { class: "card" }, h("h2", {}, "FCM credentials (Android)"), fcmForm),
      h("section", { class: "card" }, h("h2", {}, "Shared demo tenants"), tenantsSection),
      h("section", { class: "card" }, h("h2", {}, "Segments"),
        h("ul", { id: "segments" }, segments.map(function (segment) { return h("li", {}, segment.name, segment.built_in ? h("span", { class: "muted" }, " (built in)") : null); }))),
    ];
  }

  // ---- Messages
  function funnelSteps(message) {
    const sent = (message.successful || 0) + (message.failed || 0) + (message.errored || 0);
    return [
      { name: "audience", value: message.audience_total || 0 },
      { name: "sent", value: sent },
      { name: "accepted", value: message.successful || 0 },
      { name: "clicked", value: message.converted || 0 },
    ];
  }
  function errorsList(byReason) {
    const entries = Object.entries(byReason || {});
    if (!entries.length) return h("span", { class: "muted" }, "no errors");
    return h("ul", { class: "reasons" }, entries.map(function (e) { return h("li", {}, h("code", {}, e[0]), ": " + e[1]); }));
  }
  function describe(message) {
    if (message.message_kind === "live_activity") {
      return "Live Activity " + (message.event || "") + " · " + (message.activity_type || "") + " " + (message.activity_id || "");
    }
    const contents = message.contents && (message.contents.en || Object.values(message.contents)[0]);
    const heading = message.headings && (message.headings.en || Object.values(message.headings)[0]);
    return [heading, contents].filter(Boolean).join(" — ") || message.name || "(no text)";
  }

  async function pageMessages(appID) {
    const apps = await appsList();
    if (!apps.length) return [h("h1", {}, "Messages"), h("p", {}, "No apps yet.")];
    const selected = appID || apps[0].id;
    const list = (await API.asApp(selected, "GET", "/notifications", { query: { app_id: selected, limit: 20 } })).body;
    const items = (list.notifications || []).map(function (message) {
      const chart = h("div", { class: "funnel-box" });
      Charts.funnel(chart, funnelSteps(message));
      return h("article", { class: "card message", "data-message": message.id },
        h("h3", {}, h("a", { href: "#/messages/" + enc(selected) + "/" + enc(message.id) }, describe(message))),
        h("p", { class: "muted" }, message.message_kind + " · " + message.id + " · queued " + time(message.queued_at)
          + (message.remaining ? " · " + message.remaining + " remaining" : "") + (message.canceled ? " · cancelled" : "")),
        chart, errorsList(message.errors_by_reason));
    });
    return [
      h("h1", {}, "Messages"),
      h("p", {}, "App ", appSelect(apps, selected, function (id) { location.hash = "#/messages/" + enc(id); }),
        " · " + (list.total_count || 0) + " messages, newest first (notifications and Live Activity sends)"),
      items.length ? items : h("p", {}, "No messages yet."),
    ];
  }

  // A record's platform as the deliveries route gives it; a record FCM answered is Android's.
  function platformOf(record) {
    return record.platform || (record.fcm_message_name ? "android" : "—");
  }
  function serviceName(platform) {
    return platform === "android" ? "FCM" : platform === "web" ? "the browser's push service" : "APNs";
  }

  async function pageMessage(appID, messageID) {
    const message = (await API.asApp(appID, "GET", "/notifications/" + enc(messageID), { query: { app_id: appID } })).body;
    const records = (await API.asApp(appID, "GET", "/notifications/" + enc(messageID) + "/deliveries", { query: { app_id: appID, limit: 200 } })).body;
    const chart = h("div", { class: "funnel-box", id: "funnel" });
    Charts.funnel(chart, funnelSteps(message));
    return [
      h("p", {}, h("a", { href: "#/messages/" + enc(appID) }, "← Messages")),
      h("h1", {}, describe(message)),
      h("p", { class: "muted" }, message.message_kind + " · " + message.id + " · queued " + time(message.queued_at)
        + " · completed " + time(message.completed_at) + (message.failed_reason ? " · failed: " + message.failed_reason : "")),
      h("section", { class: "card" }, h("h2", {}, "Delivery funnel"), chart,
        h("p", {}, "failed (unreachable) " + message.failed + " · errored " + message.errored + " · remaining " + message.remaining),
        h("h3", {}, "Errors by reason"), errorsList(message.errors_by_reason)),
      h("section", { class: "card" }, h("h2", {}, "Per-device records"),
        h("table", { id: "deliveries" },
          h("thead", {}, h("tr", {}, ["Subscription", "Platform", "Kind", "State", "Reason", "APNs status", "apns-id / FCM message", "Attempts", "Finished", "Clicked"].map(function (t) { return h("th", {}, t); }))),
          h("tbody", {}, (records.deliveries || []).map(function (r) {
            return h("tr", { class: "state-" + r.state, "data-platform": platformOf(r) },
              h("td", {}, h("code", {}, r.subscription_id)), h("td", { class: "platform" }, platformOf(r)), h("td", {}, r.token_kind), h("td", {}, r.state),
              h("td", {}, r.error_reason || r.suppressed_reason || "—"), h("td", { class: "num" }, r.apns_status === null || r.apns_status === undefined ? "—" : r.apns_status),
              h("td", {}, h("code", {}, r.fcm_message_name || r.apns_id), r.apns_unique_id ? [h("br"), "apns-unique-id ", h("code", { class: "apns-unique-id" }, r.apns_unique_id)] : null), h("td", { class: "num" }, r.attempts), h("td", {}, time(r.finished_at)), h("td", {}, time(r.clicked_at)));
          }))),
        records.remaining ? h("p", {}, records.remaining + " recipients still queued.") : null),
    ];
  }

  // ---- Live
  async function pageLive() {
    const perSecond = h("div", { id: "chart-throughput", class: "chart-box" });
    const queue = h("div", { id: "chart-queue", class: "chart-box" });
    const connections = h("div", { id: "chart-connections", class: "chart-box" });
    const updated = h("p", { class: "muted", id: "live-updated" }, "loading…");
    const history = { queue: [], connections: [] };
    let timer = null;
    let stopped = false;
    async function tick() {
      const ok = await guarded(async function () {
        const series = (await API.call("GET", "/stats/throughput", { query: { window: "15m", step: "10s" } })).body;
        const step = series.step_seconds;
        Charts.line(perSecond, [
          { name: "accepted/s", className: "accepted", points: series.buckets.map(function (b) { return [b.at, b.accepted / step]; }) },
          { name: "failed/s", className: "failed", points: series.buckets.map(function (b) { return [b.at, b.failed / step]; }) },
        ], { xMin: series.from, xMax: series.to - step, label: "pushes per second" });
        const now = Date.now() / 1000;
        history.queue.push([now, series.queue_depth]);
        history.connections.push([now, series.apns_connections]);
        for (const key of ["queue", "connections"]) {
          while (history[key].length && history[key][0][0] < now - 900) history[key].shift();
        }
        const range = { xMin: Math.min(history.queue[0][0], now - 60), xMax: now, seconds: true, width: 360, height: 160 };
        Charts.line(queue, [{ name: "queue depth", className: "queue", points: history.queue }], Object.assign({ label: "queue depth" }, range));
        Charts.line(connections, [{ name: "APNs connections", className: "connections", points: history.connections }], Object.assign({ label: "APNs connections" }, range));
        updated.textContent = "Updated " + new Date().toISOString().slice(11, 19) + " UTC · last 15 minutes: "
          + series.totals.accepted + " accepted, " + series.totals.failed + " failed";
        return true;
      });
      if (!stopped && ok !== undefined) timer = setTimeout(tick, 3000);
    }
    stopPage = function () { stopped = true; if (timer) clearTimeout(timer); };
    setTimeout(tick, 0);
    return [
      h("h1", {}, "Live"), updated,
      h("section", { class: "card" }, h("h2", {}, "Pushes per second (accepted, failed), last 15 minutes"), perSecond),
      h("div", { class: "two" },
        h("section", { class: "card" }, h("h2", {}, "Queue depth (recipients waiting)"), queue),
        h("section", { class: "card" }, h("h2", {}, "APNs connections (this process)"), connections)),
    ];
  }

  // ---- Test push
  async function pageSend(appID) {
    const apps = await appsList();
    if (!apps.length) return [h("h1", {}, "Send a test push"), h("p", {}, "Create an app first.")];
    const selected = appID || apps[0].id;
    const result = h("div", { id: "send-result" });
    const subscription = h("input", { id: "send-subscription", required: true, placeholder: "sub_…" });
    const title = h("input", { id: "send-title", value: "Test push" });
    const body = h("input", { id: "send-body", value: "Sent from the OpenPush console", required: true });
    const form = h("form", { id: "send-form", class: "grid-form" },
      field("Subscription id", subscription), field("Title", title), field("Body", body),
      h("button", { type: "submit" }, "Send"));
    form.addEventListener("submit", function (event) { event.preventDefault(); guarded(async function () {
      const app = document.getElementById("app-select").value;
      const sent = (await API.asApp(app, "POST", "/notifications", { body: {
        app_id: app, include_subscription_ids: [subscription.value.trim()],
        headings: { en: title.value }, contents: { en: body.value },
      } })).body;
      // The device's platform says which service answers (APNs, FCM for Android, Web Push for a browser).
      const device = (await API.asApp(app, "GET", "/apps/" + enc(app) + "/subscriptions/" + enc(subscription.value.trim()))
        .then(function (r) { return r.body; }, function () { return null; })) || {};
      const service = serviceName(device.platform);
      result.replaceChildren(h("p", { id: "send-status" }, "Sent as ", h("a", { href: "#/messages/" + enc(app) + "/" + enc(sent.id) }, sent.id), "; waiting for " + service + "'s answer…"));
      const deadline = Date.now() + 30000;
      while (Date.now() < deadline) {
        const page = (await API.asApp(app, "GET", "/notifications/" + enc(sent.id) + "/deliveries",
          { query: { app_id: app, subscription_id: subscription.value.trim() } })).body;
        const record = (page.deliveries || [])[0];
        if (record) {
          const platform = record.platform || device.platform || "—";
          const fcm = platform === "android";
          const apple = !fcm && platform !== "web";
          result.replaceChildren(h("div", { class: "answer state-" + record.state, id: "answer", "data-state": record.state, "data-platform": platform },
            h("strong", {}, record.state === "accepted" ? "Accepted by " + service : "Not delivered: " + record.state),
            h("dl", { class: "facts" },
              h("dt", {}, "platform"), h("dd", {}, platform + (device.type ? " (" + device.type + ")" : "")),
              h("dt", {}, "state"), h("dd", {}, record.state),
              h("dt", {}, "reason"), h("dd", {}, record.error_reason || record.suppressed_reason || "—"),
              apple ? [h("dt", {}, "APNs status"), h("dd", {}, record.apns_status === null ? "—" : record.apns_status)] : null,
              fcm ? [h("dt", {}, "FCM message"), h("dd", {}, h("code", {}, record.fcm_message_name || "—"))]
                  : apple ? [h("dt", {}, "apns-id"), h("dd", {}, h("code", {}, record.apns_id))] : null,
              record.apns_unique_id ? [h("dt", {}, "apns-unique-id"), h("dd", {}, h("code", { class: "apns-unique-id" }, record.apns_unique_id))] : null,
              h("dt", {}, "attempts"), h("dd", {}, record.attempts)),
            h("p", {}, h("a", { href: "#/messages/" + enc(app) + "/" + enc(sent.id) }, "Open the message"))));
          return;
        }
        await new Promise(function (resolve) { setTimeout(resolve, 700); });
      }
      result.replaceChildren(h("p", { id: "send-status" }, "No answer yet after 30 s (" + sent.id + " is still queued)."));
    }); });
    return [
      h("h1", {}, "Send a test push"),
      h("p", {}, "App ", appSelect(apps, selected, function (id) { location.hash = "#/send/" + enc(id); })),
      h("section", { class: "card" }, form, result),
    ];
  }

  // ---- Audit log: the organization's administrative changes, newest first, a page at a time
  // through the same route OneSignal's client calls. The organization id is any app's.
  async function pageAudit() {
    const apps = (await API.call("GET", "/apps", { query: { limit: 1 } })).body || [];
    if (!apps.length) return [h("h1", {}, "Audit log"), h("p", { class: "muted" }, "No apps yet, so nothing to show.")];
    const path = "/organizations/" + enc(apps[0].organization_id) + "/audit_logs";
    const body = h("tbody", {});
    const more = h("button", { type: "button", id: "audit-more", hidden: true }, "Older entries");
    let cursor = null;
    async function load() {
      const page = (await API.call("GET", path, { query: { limit: 50, cursor: cursor } })).body;
      for (const entry of page.audit_logs) {
        const target = (entry.targets || [])[0] || {};
        append(body, h("tr", { "data-action": entry.action, "data-target": target.id || "" },
          h("td", {}, isoTime(entry.occurred_at)),
          h("td", {}, h("code", {}, entry.action)),
          h("td", {}, entry.actor.id + " (" + entry.actor.type + ")"),
          h("td", {}, entry.app_id ? h("a", { href: "#/apps/" + enc(entry.app_id) }, entry.app_id) : "—"),
          h("td", {}, target.type ? target.type + " " : "", h("code", {}, target.id || "—")),
          h("td", {}, h("code", {}, entry.request_id || "—"))));
      }
      cursor = page.has_more ? page.next_cursor : null;
      more.hidden = !cursor;
    }
    more.addEventListener("click", function () { guarded(load); });
    await load();
    return [
      h("h1", {}, "Audit log"),
      h("p", { class: "muted" }, "Every change to apps, keys, credentials, webhooks and tenants, newest first; kept a year."),
      h("section", { class: "card" },
        h("table", { id: "audit" },
          h("thead", {}, h("tr", {}, ["Time", "Action", "Actor", "App", "Target", "Request"].map(function (t) { return h("th", {}, t); }))),
          body),
        more),
    ];
  }

  // ---- Router
  // Each render has a number: a slower earlier one never replaces what a later one showed.
  let renders = 0;
  async function render() {
    const generation = ++renders;
    stopPage();
    stopPage = function () {};
    const signedIn = !!API.orgKey();
    signInSection.hidden = signedIn;
    view.hidden = !signedIn;
    nav.hidden = !signedIn;
    if (!signedIn) { document.getElementById("org-key").focus(); return; }
    const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
    const page = parts[0] || "apps";
    for (const link of nav.querySelectorAll("a")) link.classList.toggle("active", link.dataset.page === page);
    view.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    view.dataset.page = page;
    const content = await guarded(async function () {
      switch (page) {
        case "apps": return parts[1] ? pageApp(parts[1]) : pageApps();
        case "messages": return parts[2] ? pageMessage(parts[1], parts[2]) : pageMessages(parts[1]);
        case "live": return pageLive();
        case "send": return pageSend(parts[1]);
        case "audit": return pageAudit();
        default: return [h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/apps" }, "Apps"))];
      }
    });
    if (!API.orgKey() || generation !== renders) return;
    view.replaceChildren.apply(view, [].concat(content || h("p", { class: "muted" }, "This page could not be loaded.")).flat(Infinity));
    view.dataset.ready = page;
  }

  document.getElementById("sign-in-form").addEventListener("submit", function (event) {
    event.preventDefault();
    const input = document.getElementById("org-key");
    guarded(async function () {
      await API.signIn(input.value.trim());
      input.value = "";
      // A new hash renders through hashchange; the same hash needs a render of its own.
      if (!location.hash || location.hash === "#") location.hash = "#/apps";
      else await render();
    });
  });
  document.getElementById("sign-out").addEventListener("click", function () {
    guarded(async function () { await API.signOut(); clearError(); location.hash = ""; await render(); });
  });
  window.addEventListener("hashchange", function () { clearError(); render(); });
  render();
})();
